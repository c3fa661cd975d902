import { describeValue } from '../../util/describeValue.js';
import { assertDuration, assertOptions } from '../../util/validate.js';
import type { MemoryStoreOptions } from './MemoryStore.js';

const WHERE = 'createMemoryStore';
const KNOWN: readonly (keyof MemoryStoreOptions)[] = ['scheduler', 'latencyMs'];

/** Checks the memory store's options as strictly as `createLockClient` checks its own: a TypeError or RangeError naming the option. */
export function checkMemoryStoreOptions(options: MemoryStoreOptions | undefined): void {
  assertOptions(options, KNOWN, WHERE);
  if (options === undefined) return;
  const { scheduler, latencyMs } = options;
  if (latencyMs !== undefined) assertDuration(latencyMs, 'latencyMs', WHERE, { min: 0 });
  if (scheduler !== undefined && !isScheduler(scheduler)) {
    throw new TypeError(`rxlock: ${WHERE}: option "scheduler" must be an RxJS SchedulerLike, got ${describeValue(scheduler)}`);
  }
}

function isScheduler(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { now, schedule } = value as { now?: unknown; schedule?: unknown };
  return typeof now === 'function' && typeof schedule === 'function';
}
