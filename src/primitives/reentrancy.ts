import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientCore } from '../engine/ClientCore.js';

/** The hold a `withLock` callback runs in: once it is released or lost, its owner is nobody's to re-enter with. */
interface OwnedHold {
  readonly owner: string;
  readonly ended: boolean;
}

/**
 * Implicit reentrancy for async code: while a `withLock` callback's hold lasts, its async context
 * remembers which owner holds which lock, so a nested acquisition of the same name by the same logical
 * task re-enters instead of deadlocking. Independent tasks have independent contexts and still exclude
 * each other, and so do tasks the callback started that run on after its hold ended: they acquire anew.
 */
const heldByTask = new AsyncLocalStorage<ReadonlyMap<string, OwnedHold>>();

function slot(core: ClientCore, fullName: string): string {
  return `${core.clientId}\u0000${fullName}`;
}

/** The owner that holds `fullName` in the current async context, if any, while that hold lasts. */
export function contextOwner(core: ClientCore, fullName: string): string | undefined {
  const hold = heldByTask.getStore()?.get(slot(core, fullName));
  return hold === undefined || hold.ended ? undefined : hold.owner;
}

/** Runs `fn` (and everything it starts) as the owner of `hold` on `fullName`, for as long as `hold` has not ended. */
export function runAsOwner<T>(core: ClientCore, fullName: string, hold: OwnedHold, fn: () => T): T {
  const outer = heldByTask.getStore();
  const inner = new Map(outer);
  inner.set(slot(core, fullName), hold);
  return heldByTask.run(inner, fn);
}
