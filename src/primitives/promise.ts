import { lastValueFrom } from 'rxjs';
import type { ClientCore } from '../engine/ClientCore.js';
import type { HeldLease } from '../engine/HeldLease.js';
import type { Lease } from '../engine/Lease.js';
import { startHold } from '../engine/hold.js';
import { checkLockOptions, planLockHold, type LockOptions } from './lock/lock.js';
import { withLock$ } from './withLock.js';
import { callSite } from '../util/describeValue.js';

/** A lease held through the promise API. Release it, or let `await using` do it. */
export interface LockHandle extends Lease {
  /**
   * Releases the lock and resolves once Redis confirmed it. Rejects with `NotLockOwnerError` if the lock
   * was no longer held (expired, force-unlocked, lost). Calling it again returns the same outcome.
   */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Runs `fn` while holding the lock and returns its result. The lock is released (and the release
 * confirmed) before the promise settles; a failed release is reported on `events$`, never instead of
 * `fn`'s own outcome. If the lock is lost, the promise rejects with `LockLostError` and `lease.signal`
 * aborts: `fn` keeps running unless it honours the signal, as promises cannot be cancelled.
 */
export function withLock<T>(core: ClientCore, name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T> {
  return lastValueFrom(
    withLock$<T>(core, name, (lease) => Promise.resolve().then(() => fn(lease)), options),
    { defaultValue: undefined as T },
  );
}

/** Acquires the lock and resolves with a handle; an aborted `signal` rejects with its reason. */
export function acquire(core: ClientCore, name: string, options: LockOptions = {}): Promise<LockHandle> {
  return new Promise<LockHandle>((resolve, reject) => {
    const { signal } = options;
    try {
      checkLockOptions(callSite('acquire', name), name, options);
      signal?.throwIfAborted();
    } catch (error) {
      reject(error);
      return;
    }
    const { spec, toHold } = planLockHold(core, name, options);
    let handle: LockHandle | undefined;
    const onAbort = (): void => {
      hold.unsubscribe();
      reject(signal?.reason);
    };
    // After the grant, loss is visible on the handle (signal, held); before it, the promise rejects.
    const hold = startHold(spec, toHold, {
      next: (lease) => {
        signal?.removeEventListener('abort', onAbort);
        handle = toHandle(lease, () => hold.unsubscribe());
        resolve(handle);
      },
      error: (error) => {
        signal?.removeEventListener('abort', onAbort);
        if (handle === undefined) reject(error);
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function toHandle(lease: HeldLease, unsubscribe: () => void): LockHandle {
  return new PromiseLease(lease, unsubscribe);
}

class PromiseLease implements LockHandle {
  readonly #lease: HeldLease;
  readonly #unsubscribe: () => void;
  #released: Promise<void> | undefined;

  constructor(lease: HeldLease, unsubscribe: () => void) {
    this.#lease = lease;
    this.#unsubscribe = unsubscribe;
  }

  get name(): string {
    return this.#lease.name;
  }

  get owner(): string {
    return this.#lease.owner;
  }

  get acquiredAt(): number {
    return this.#lease.acquiredAt;
  }

  get token(): number | undefined {
    return this.#lease.token;
  }

  get signal(): AbortSignal {
    return this.#lease.signal;
  }

  get deadline(): number {
    return this.#lease.deadline;
  }

  get held(): boolean {
    return this.#lease.held;
  }

  release(): Promise<void> {
    if (this.#released === undefined) {
      this.#released = this.#lease.endPromise();
      // Ending the hold now only stops its bookkeeping: the release above is already under way.
      this.#unsubscribe();
    }
    return this.#released;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
