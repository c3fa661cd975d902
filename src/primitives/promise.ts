import { lastValueFrom, type Unsubscribable } from 'rxjs';
import type { ClientCore } from '../engine/ClientCore.js';
import type { Hold } from '../engine/Hold.js';
import type { Lease } from '../engine/Lease.js';
import { LeaseView } from '../engine/LeaseView.js';
import { startHold, type HoldObserver } from '../engine/holdLifecycle.js';
import { checkLockCall, planLockHold, type LockOptions } from './lock/lock.js';
import { withLock$ } from './withLock.js';
import type { LeaseHandle } from './acquireLease.js';
import { callSite, describeValue } from '../util/describeValue.js';

/**
 * Runs `fn` while holding the lock and returns its result. The lock is released (and the release
 * confirmed) before the promise settles; a failed release is reported on `events$`, never instead of
 * `fn`'s own outcome. If the lock is lost, the promise rejects with `LockLostError` and `lease.signal`
 * aborts: `fn` keeps running unless it honours the signal, as promises cannot be cancelled.
 */
export function withLock<T>(core: ClientCore, name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T> {
  if (typeof fn !== 'function') {
    return Promise.reject(new TypeError(`rxlock: ${callSite('withLock', name)}: fn must be a function, got ${describeValue(fn)}`));
  }
  return lastValueFrom(
    withLock$<T>(core, name, (lease) => Promise.resolve().then(() => fn(lease)), options, 'withLock'),
    { defaultValue: undefined as T },
  );
}

/** Acquires the lock and resolves with a handle; an aborted `signal` rejects with its reason. */
export function acquire(core: ClientCore, name: string, options: LockOptions = {}): Promise<LeaseHandle> {
  return new Promise<LeaseHandle>((resolve, reject) => {
    const { signal } = options;
    try {
      checkLockCall('acquire', name, options, core.settings);
      signal?.throwIfAborted();
    } catch (error) {
      reject(error);
      return;
    }
    const plan = planLockHold(core, name, options);
    const handle = new AcquiredLease(resolve, reject, signal);
    handle.start(startHold(plan, handle));
  });
}

/**
 * One `acquire()`: the hold's sink until the grant, then the handle it resolves with. One object, as
 * acquisitions are the hot path. After the grant, loss is visible on the handle (signal, held); before it,
 * the promise rejects.
 */
class AcquiredLease extends LeaseView implements LeaseHandle, HoldObserver {
  #resolve: ((handle: LeaseHandle) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  #hold: Unsubscribable | undefined;
  #lease: Hold | undefined;
  #released: Promise<void> | undefined;

  constructor(resolve: (handle: LeaseHandle) => void, reject: (error: unknown) => void, signal: AbortSignal | undefined) {
    super();
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
  }

  start(hold: Unsubscribable): void {
    this.#hold = hold;
    if (this.#signal === undefined || this.#reject === undefined) return;
    const signal = this.#signal;
    this.#onAbort = () => {
      hold.unsubscribe();
      this.error(signal.reason);
    };
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** @internal The hold's: granted. */
  next(lease: Hold): void {
    const resolve = this.#resolve;
    this.#lease = lease;
    if (this.#endWait()) resolve?.(this);
  }

  /** @internal The hold's: failed before the grant (after it, the loss shows on the handle). */
  error(error: unknown): void {
    const reject = this.#reject;
    if (this.#endWait()) reject?.(error);
  }

  /** Whether the promise was still pending; it is settled from now on. */
  #endWait(): boolean {
    if (this.#resolve === undefined) return false;
    this.#resolve = undefined;
    this.#reject = undefined;
    if (this.#onAbort !== undefined) this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#onAbort = undefined;
    return true;
  }

  /** The granted lease the handle reads through to. */
  protected get lease(): Hold {
    if (this.#lease === undefined) throw new Error('rxlock: the lock handle was read before its lock was granted');
    return this.#lease;
  }

  release(): Promise<void> {
    if (this.#released === undefined) {
      this.#released = this.lease.endPromise();
      // Ending the hold now only stops its bookkeeping: the release above is already under way.
      this.#hold?.unsubscribe();
    }
    return this.#released;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
