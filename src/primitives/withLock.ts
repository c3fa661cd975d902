import { defer, from, Observable, type ObservableInput, type Subscription } from 'rxjs';
import type { ClientCore } from '../engine/ClientCore.js';
import type { Hold } from '../engine/Hold.js';
import type { Lease } from '../engine/Lease.js';
import { checkLockOptions, chooseOwner, LOCK_OPTION_KEYS, lockHold$, type LockOptions } from './lock/lock.js';
import { runAsOwner } from './reentrancy.js';
import { LockLostError, type LockLostErrorOptions } from '../errors/LockLostError.js';
import { callSite } from '../util/describeValue.js';

/**
 * Runs `work` inside a held lease, in the order a critical section needs:
 * - the work's values pass through;
 * - on completion the lock is released and the result completes only once Redis confirmed the release;
 * - on an error from the work the lock is released first, then the error propagates;
 * - on unsubscription the work is torn down before the lock is released;
 * - if the lock is lost the work is torn down and the result errors with `LockLostError`;
 * - if the lease was lost while the work ran (its deadline passed, or the release found the lock gone), the
 *   result errors with `LockLostError` even though the work finished, carrying the work's error as `cause`
 *   or its last value as `result`: the caller must not believe a section was protected when it was not.
 * A release the store failed never replaces the work's outcome; it is reported on `events$`. `settle`
 * releases a lease once its work ended and errors only with such a `LockLostError`.
 */
export function scoped$<L, T>(
  hold: Observable<L>,
  work: (lease: L) => ObservableInput<T>,
  context: (lease: L, run: () => void) => void,
  settle: (lease: L) => Observable<void>,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    let workSubscription: Subscription | undefined;
    let holdSubscription: Subscription | undefined;
    /** What the work ended with, once it ended: a loss reported after that carries it. */
    let outcome: LockLostErrorOptions | undefined;
    const lost = (error: unknown): void => {
      workSubscription?.unsubscribe();
      subscriber.error(outcome !== undefined && error instanceof LockLostError ? error.withOutcome(outcome) : error);
    };
    const ended = (lease: L, workOutcome: LockLostErrorOptions, notify: () => void): void => {
      outcome = workOutcome;
      settle(lease).subscribe({ complete: notify, error: lost });
    };
    holdSubscription = hold.subscribe({
      next: (lease) => {
        context(lease, () => {
          let last: T | undefined;
          workSubscription = defer(() => from(work(lease))).subscribe({
            next: (value) => {
              last = value;
              subscriber.next(value);
            },
            error: (error: unknown) => ended(lease, { cause: error }, () => subscriber.error(error)),
            complete: () => ended(lease, { result: last }, () => subscriber.complete()),
          });
        });
      },
      error: lost,
    });
    return () => {
      workSubscription?.unsubscribe();
      holdSubscription?.unsubscribe();
      holdSubscription = undefined;
    };
  });
}

/**
 * `withLock$` as the client exposes it. Nested acquisitions of `name` inside `work` re-enter. `api`: the
 * method that bad input is reported against (`withLock` wraps its callback in this).
 */
export function withLock$<T>(
  core: ClientCore,
  name: string,
  work: (lease: Lease) => ObservableInput<T>,
  options?: LockOptions,
  api: 'withLock$' | 'withLock' = 'withLock$',
): Observable<T> {
  return defer(() => {
    const where = callSite(api, name);
    checkLockOptions(where, name, options, LOCK_OPTION_KEYS, core.settings);
    if (typeof work !== 'function') throw new TypeError(`rxlock: ${where}: work must be a function, got ${typeof work}`);
    const fullName = core.keyPrefix + name;
    const chosen = chooseOwner(core, fullName, options?.owner);
    const shared = { owner: chosen.owner, shared: true };
    return scoped$(lockHold$(core, name, options, shared), work, (lease, run) => runAsOwner(core, fullName, lease, run), endHeld);
  });
}

function endHeld(lease: Hold): Observable<void> {
  return lease.settle();
}
