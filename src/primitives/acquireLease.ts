import { isObservable, Subscription, type Observable } from 'rxjs';
import type { Lease } from '../engine/Lease.js';
import { heldLeasesOf } from '../engine/leaseParts.js';
import { describeValue } from '../util/describeValue.js';
import { assertSignal } from '../util/validate.js';
import { STREAMS } from './withLease.js';

/** A lease held through the promise API: the lease itself, plus `release()`. Release it, or let `await using` do it. */
export type LeaseHandle<L extends Lease = Lease> = L & {
  /**
   * Releases the lease and resolves once Redis confirmed it (at once after the client's `close()`, which
   * released it). Rejects with `LockLostError` if the lease was lost before (its deadline passed, or the
   * lock was no longer this holder's). Calling it again returns the same outcome.
   */
  release(): Promise<void>;
  /** `release()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
};

/** Options of `acquireLease` and `withLease`. */
export interface LeasePromiseOptions {
  /**
   * Cancels the wait: the promise rejects with `signal.reason` and nothing stays held.
   * @default undefined: the wait ends only with the stream (a grant, or an error such as `LockTimeoutError`)
   */
  signal?: AbortSignal | undefined;
}

/**
 * Subscribes to one of rxlock's lease streams (`fairLock$`, `readLock$`, `writeLock$`, `multiLock$`,
 * `semaphore(name).acquire$`, `leasedSemaphore(name).acquire$`, …) and resolves with a handle to its lease once
 * held: the lease's fields, `release()`, and `[Symbol.asyncDispose]` for `await using`. After the grant a loss
 * shows on the handle (`held`, `signal`) and `release()` rejects with `LockLostError`; before it, the promise
 * rejects with the stream's error (`LockTimeoutError`, …).
 *
 * @example
 * await using permits = await acquireLease(client.semaphore('renders').acquire$(2));
 * await render(permits.signal);
 */
export function acquireLease<L extends Lease>(lease$: Observable<L>, options: LeasePromiseOptions = {}): Promise<LeaseHandle<L>> {
  return new Promise<LeaseHandle<L>>((resolve, reject) => {
    const { signal } = options;
    try {
      if (!isObservable(lease$)) {
        throw new TypeError(`rxlock: acquireLease: the lease stream must be an Observable (${STREAMS}), got ${describeValue(lease$)}`);
      }
      assertSignal(signal, 'acquireLease');
      signal?.throwIfAborted();
    } catch (error) {
      reject(error);
      return;
    }
    let handle: LeaseHandle<L> | undefined;
    // A parent, so that ending it while subscribe() still runs (a lease emitted at once) ends the child as added.
    const subscription = new Subscription();
    const end = (): void => subscription.unsubscribe();
    const onAbort = (): void => {
      end();
      reject(signal?.reason);
    };
    const settled = (): void => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    subscription.add(
      lease$.subscribe({
        next: (lease) => {
          if (handle !== undefined) {
            // A second lease (leader$'s next term): the handle holds the first one only.
            end();
            return;
          }
          const parts = heldLeasesOf(lease);
          if (parts === undefined) {
            end();
            settled();
            reject(new TypeError(`rxlock: acquireLease: the stream emitted ${describeValue(lease)}, not a lease of one of rxlock's streams (${STREAMS})`));
            return;
          }
          settled();
          handle = handleOf(lease, () => {
            const released = Promise.all(parts.map((part) => part.endPromise())).then(() => undefined);
            // Ending the subscription now only stops its bookkeeping: the releases above are already under way.
            end();
            return released;
          });
          resolve(handle);
        },
        error: (error: unknown) => {
          settled();
          if (handle === undefined) reject(error);
        },
      }),
    );
  });
}

/** The lease with `release()` and `[Symbol.asyncDispose]` added; its own fields read through to it. */
function handleOf<L extends Lease>(lease: L, release: () => Promise<void>): LeaseHandle<L> {
  let released: Promise<void> | undefined;
  const once = (): Promise<void> => (released ??= release());
  return new Proxy(lease, {
    get(target, property) {
      if (property === 'release') return once;
      if (property === Symbol.asyncDispose) return once;
      // The lease's getters run on the lease itself (they read its private fields).
      return Reflect.get(target, property, target) as unknown;
    },
    has(target, property) {
      return property === 'release' || property === Symbol.asyncDispose || Reflect.has(target, property);
    },
  }) as LeaseHandle<L>;
}
