import { concatWith, defer, ignoreElements, isObservable, lastValueFrom, merge, tap, throwError, type Observable, type ObservableInput } from 'rxjs';
import type { Lease } from '../engine/Lease.js';
import { heldLeasesOf } from '../engine/leaseParts.js';
import { describeValue } from '../util/describeValue.js';
import { scoped$ } from './withLock.js';
import { LeaderTerms } from './leader.js';
import { abortable } from './abortable.js';
import { assertSignal } from '../util/validate.js';
import type { LeasePromiseOptions } from './acquireLease.js';

/** Which streams the lease functions take, for their errors. */
export const STREAMS =
  'lock$, fairLock$, spinLock$, readLock$, writeLock$, multiLock$, groupLock$, leader$, semaphore(…).acquire$ or leasedSemaphore(…).acquire$';

/**
 * Runs `work(lease)` inside the lease of any of rxlock's lease streams (`lock$`, `fairLock$`, `readLock$`,
 * `writeLock$`, `multiLock$`, `leader$`, `semaphore(name).acquire$`, `leasedSemaphore(name).acquire$`), with
 * the guarantees `withLock$` gives `lock$`:
 * - the work's values pass through;
 * - when the work completes the lease is released (every member of a multi-lock, the permits of a semaphore),
 *   and the result completes only once Redis confirmed the release;
 * - on an error from the work the lease is released first, then the error propagates;
 * - on unsubscription the work is torn down before the lease is released;
 * - if the lease is lost the work is torn down and the result errors with `LockLostError`.
 * A failed release never replaces the work's outcome; it is reported on `events$`.
 *
 * Use it for finite work; `lease$.pipe(switchMap(work))` never releases once such work completes, since lease
 * streams never complete. With `leader$(name)` it is `leader$(name, work)`: a lost term tears the work down and
 * the next term runs it again; the result completes after one run finished in a term.
 *
 * A stream that emits something other than one of rxlock's leases, or that completes (a lease stream never
 * does: `take(1)` in front of this would release the lease while the work runs), errors with a `TypeError`.
 */
export function withLease$<L extends Lease, T>(lease$: Observable<L>, work: (lease: L) => ObservableInput<T>): Observable<T> {
  return defer(() => {
    if (!isObservable(lease$)) throw new TypeError(`rxlock: withLease$: the lease stream must be an Observable (${STREAMS}), got ${describeValue(lease$)}`);
    if (typeof work !== 'function') throw new TypeError(`rxlock: withLease$: work must be a function, got ${typeof work}`);
    if (lease$ instanceof LeaderTerms) return lease$.perTerm(work as (term: Lease) => ObservableInput<T>);
    return scoped$(checked$(lease$), work, (_lease, run) => run(), endAll);
  });
}

/**
 * The promise form of `withLease$`: runs `fn(lease)` while holding the lease of any of rxlock's lease streams,
 * and resolves with its result once the release was confirmed. It rejects with the stream's error if the lease
 * could not be had, with `fn`'s error, or with `LockLostError` if the lease was lost before `fn` settled (even
 * if `fn` finished: its result is then on the error's `result`). `signal` cancels the wait, or ends the hold.
 *
 * @example
 * const report = await withLease(client.fairLock$('reports'), (lease) => buildReport(lease.signal));
 */
export function withLease<L extends Lease, T>(lease$: Observable<L>, fn: (lease: L) => Promise<T> | T, options: LeasePromiseOptions = {}): Promise<T> {
  try {
    if (typeof fn !== 'function') throw new TypeError(`rxlock: withLease: fn must be a function, got ${describeValue(fn)}`);
    assertSignal(options.signal, 'withLease');
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const result$ = withLease$(lease$, (lease) => Promise.resolve().then(() => fn(lease)));
  return lastValueFrom(abortable(result$, options.signal), { defaultValue: undefined as T });
}

/** Each lease checked to be rxlock's, and the stream's completion (a lease stream never completes) an error. */
function checked$<L extends Lease>(lease$: Observable<L>): Observable<L> {
  return lease$.pipe(
    tap((lease) => {
      if (heldLeasesOf(lease) === undefined) {
        throw new TypeError(`rxlock: withLease$: the stream emitted ${describeValue(lease)}, not a lease of one of rxlock's streams (${STREAMS})`);
      }
    }),
    concatWith(
      throwError(
        () =>
          new TypeError(
            `rxlock: withLease$: the lease stream completed; rxlock's lease streams never do (take(1) or first() before withLease$ releases the lease at once)`,
          ),
      ),
    ),
  );
}

/**
 * Releases every held lease a lease is made of (a multi-lock's members at once); completes when all were
 * answered, or errors with the `LockLostError` of the first part that was not held throughout.
 */
function endAll(lease: Lease): Observable<void> {
  const parts = heldLeasesOf(lease) ?? [];
  // Every part's release starts now, whatever the others' outcome.
  const settled = parts.map((part) => part.settle());
  return merge(...settled).pipe(ignoreElements());
}
