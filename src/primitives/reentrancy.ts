import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientCore } from '../engine/ClientCore.js';

/**
 * Implicit reentrancy for async code: while a `withLock` callback runs, its async context remembers
 * which owner holds which lock, so a nested acquisition of the same name by the same logical task
 * re-enters instead of deadlocking. Independent tasks have independent contexts and still exclude
 * each other.
 */
const heldByTask = new AsyncLocalStorage<ReadonlyMap<string, string>>();

function slot(core: ClientCore, fullName: string): string {
  return `${core.clientId}\u0000${fullName}`;
}

/** The owner that holds `fullName` in the current async context, if any. */
export function contextOwner(core: ClientCore, fullName: string): string | undefined {
  return heldByTask.getStore()?.get(slot(core, fullName));
}

/** Runs `fn` (and everything it starts) as `owner` of `fullName`. */
export function runAsOwner<T>(core: ClientCore, fullName: string, owner: string, fn: () => T): T {
  const outer = heldByTask.getStore();
  const inner = new Map(outer);
  inner.set(slot(core, fullName), owner);
  return heldByTask.run(inner, fn);
}
