import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Subscription } from 'rxjs';
import { CommandTally } from '../commandTally.js';
import type { RxlockPrimitive } from '../contenders/rxlockObservables.js';
import { heapAfterGc } from '../heap.js';
import { rxlock, rxlockTesting } from '../rxlock.js';
import type { BenchServer } from '../server.js';
import { eventually, sleep } from '../sleep.js';

/** Locks requested at once while taking them. */
const CHUNK = 500;

export interface ManyHeldSettings {
  readonly locks: number;
  readonly watchdogTimeoutMs: number;
  /** Renewal ticks to observe. */
  readonly ticks: number;
  readonly keyMarker: string;
}

export interface DelaySummary {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One rxlock client holding many locks under the watchdog. */
export interface ManyHeldFigures {
  readonly id: string;
  readonly label: string;
  readonly unavailable?: string | undefined;
  readonly locks: number;
  /** Holding at the end of the observation. */
  readonly held: number;
  /** Granted, then lost (the stream errored) before the end of the observation. */
  readonly lost: number;
  /** From the first subscription to the last lease. */
  readonly acquireAllMs: number;
  /** Bursts of renewal commands seen while observing. */
  readonly ticks: number;
  readonly commandsPerTick: { readonly mean: number; readonly max: number } | undefined;
  readonly commandNames: Record<string, number>;
  /**
   * Event-loop delay (monitorEventLoopDelay, 1 ms resolution) from a tick's first command until half a period
   * later, of the worst tick (the one with the highest p99).
   */
  readonly eventLoopDelay: DelaySummary | undefined;
  /** (heap after GC with every lock held − heap after GC before) / locks; undefined without --expose-gc. */
  readonly heapPerLockBytes: number | undefined;
  readonly keysLeft: number;
  readonly errors: number;
  readonly firstError: string | undefined;
}

export async function runManyHeld(server: BenchServer, primitive: RxlockPrimitive, settings: ManyHeldSettings): Promise<ManyHeldFigures> {
  const { locks, watchdogTimeoutMs, ticks } = settings;
  const base = { id: primitive.id, label: primitive.label, locks };
  const probe = rxlock.createLockClient({ store: rxlockTesting.createMemoryStore() });
  const available = primitive.lockOf(probe) !== undefined;
  await probe.close();
  if (!available) {
    return {
      ...base,
      unavailable: 'not available in this build',
      held: 0,
      lost: 0,
      acquireAllMs: 0,
      ticks: 0,
      commandsPerTick: undefined,
      commandNames: {},
      eventLoopDelay: undefined,
      heapPerLockBytes: undefined,
      keysLeft: 0,
      errors: 0,
      firstError: undefined,
    };
  }

  const marker = `${settings.keyMarker}:held:${primitive.id}`;
  const tally = new CommandTally();
  const redis = tally.attach(server.connect());
  const client = rxlock.createLockClient({ redis, watchdogTimeoutMs });
  const lock$ = primitive.lockOf(client)!;
  const periodMs = Math.max(1, Math.floor(watchdogTimeoutMs / 3));
  let errors = 0;
  let firstError: string | undefined;
  const fail = (error: unknown): void => {
    errors++;
    firstError ??= String(error);
  };

  // Warm-up: the connection open and every script loaded, the renewal script too (one lock held across a
  // tick), so that the figures show steady-state ticks. A cold script cache is reported by `commandNames`.
  let warm: Subscription | undefined;
  await new Promise<void>((resolve, reject) => {
    warm = lock$(client, `${marker}:warm`).subscribe({ next: () => resolve(), error: reject });
  });
  await sleep(periodMs + periodMs / 2);
  warm?.unsubscribe();
  await eventually(async () => (await server.keys(`${marker}:warm`)).length === 0, 5_000);

  const heapBefore = await heapAfterGc();
  const subscriptions: Subscription[] = [];
  let held = 0;
  let lost = 0;
  const startedAt = performance.now();
  // In chunks, as a service takes its locks over time: one burst of 10,000 acquires on one connection would
  // queue the first holds' renewals behind thousands of acquires.
  for (let first = 0; first < locks; first += CHUNK) {
    const size = Math.min(CHUNK, locks - first);
    await new Promise<void>((resolve) => {
      let settled = 0;
      const settle = (): void => {
        if (++settled === size) resolve();
      };
      for (let i = first; i < first + size; i++) {
        let granted = false;
        subscriptions.push(
          lock$(client, `${marker}:${i}`).subscribe({
            next: () => {
              granted = true;
              held++;
              settle();
            },
            error: (error: unknown) => {
              fail(error);
              if (granted) {
                held--;
                lost++;
              } else {
                settle();
              }
            },
          }),
        );
      }
    });
  }
  const acquireAllMs = performance.now() - startedAt;
  const heapHeld = await heapAfterGc();

  // Observe the renewal ticks: a burst of commands after a quiet gap is one tick. Each tick gets a fresh
  // delay monitor (a re-enabled one would record the disabled time as one long delay).
  const bursts: number[] = [];
  const delays: DelaySummary[] = [];
  let monitor: IntervalHistogram | undefined;
  let lastCommandAt = -Infinity;
  let delayWindow: NodeJS.Timeout | undefined;
  const closeMonitor = (): void => {
    if (monitor === undefined) return;
    monitor.disable();
    if (monitor.count > 0) delays.push({ p50Ms: monitor.percentile(50) / 1e6, p99Ms: monitor.percentile(99) / 1e6, maxMs: monitor.max / 1e6 });
    monitor = undefined;
  };
  tally.onCommand(() => {
    const now = performance.now();
    if (now - lastCommandAt > periodMs / 2) {
      bursts.push(0);
      closeMonitor();
      monitor = monitorEventLoopDelay({ resolution: 1 });
      monitor.enable();
      clearTimeout(delayWindow);
      delayWindow = setTimeout(closeMonitor, periodMs / 2);
    }
    bursts[bursts.length - 1]!++;
    lastCommandAt = now;
  });
  tally.start();
  await sleep(periodMs * ticks + periodMs / 4);
  tally.stop();
  tally.onCommand(undefined);
  clearTimeout(delayWindow);
  closeMonitor();
  const commandNames = Object.fromEntries(tally.entries());
  const heldAtEnd = held;
  const lostAtEnd = lost;

  for (const subscription of subscriptions) subscription.unsubscribe();
  await eventually(async () => (await server.keys(marker)).length === 0, 10_000);
  const keysLeft = (await server.keys(marker)).length;
  await client.close();
  redis.disconnect();
  await server.deleteKeys(marker);

  return {
    ...base,
    held: heldAtEnd,
    lost: lostAtEnd,
    acquireAllMs,
    ticks: bursts.length,
    commandsPerTick: bursts.length > 0 ? { mean: bursts.reduce((a, b) => a + b, 0) / bursts.length, max: Math.max(...bursts) } : undefined,
    commandNames,
    eventLoopDelay: delays.reduce<DelaySummary | undefined>((worst, tick) => (worst === undefined || tick.p99Ms > worst.p99Ms ? tick : worst), undefined),
    heapPerLockBytes: heapBefore !== undefined && heapHeld !== undefined ? (heapHeld - heapBefore) / locks : undefined,
    keysLeft,
    errors,
    firstError,
  };
}
