import { catchError, concatWith, defer, EMPTY, ignoreElements, isObservable, merge, tap, throwError, type Observable, type ObservableInput } from 'rxjs';
import type { Lease } from '../engine/Lease.js';
import { heldLeasesOf } from '../engine/leaseParts.js';
import { describeValue } from '../util/describeValue.js';
import { scoped$ } from './withLock.js';

const STREAMS = 'lock$, fairLock$, readLock$, writeLock$, multiLock$, leader$, semaphore(…).acquire$ or leasedSemaphore(…).acquire$';

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
 * streams never complete. With `leader$` a lost term tears the work down and the next term runs it again
 * (`leader$` re-campaigns after what is piped into it); the result completes after one run finished in a term.
 *
 * A stream that emits something other than one of rxlock's leases, or that completes (a lease stream never
 * does: `take(1)` in front of this would release the lease while the work runs), errors with a `TypeError`.
 */
export function withLease$<L extends Lease, T>(lease$: Observable<L>, work: (lease: L) => ObservableInput<T>): Observable<T> {
  return defer(() => {
    if (!isObservable(lease$)) throw new TypeError(`rxlock: withLease$: the lease stream must be an Observable (${STREAMS}), got ${describeValue(lease$)}`);
    if (typeof work !== 'function') throw new TypeError(`rxlock: withLease$: work must be a function, got ${typeof work}`);
    // Piped rather than subscribed: leader$ puts what is piped before its re-campaign, so a lost term ends one scope.
    return lease$.pipe((source) => scoped$(checked$(source), work, (_lease, run) => run(), endAll));
  });
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

/** Releases every held lease a lease is made of (a multi-lock's members at once); completes when all were answered. */
function endAll(lease: Lease): Observable<void> {
  const parts = heldLeasesOf(lease) ?? [];
  return merge(...parts.map((part) => part.end().pipe(catchError(() => EMPTY)))).pipe(ignoreElements());
}
