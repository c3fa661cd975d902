import type { Observable, ObservableInput } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { leader$, type LeaderOptions } from '../leader.js';
import { acquire, withLock, type LockHandle } from '../promise.js';
import { withLock$ } from '../withLock.js';
import { lock$, type LockOptions } from './lock.js';
import { forceUnlock, holdCount, isLocked, remainingTtl } from './queries.js';

/** The reentrant lock's part of the client. */
export interface LockMethods {
  /** A reentrant lock (Redisson's RLock) as a cold Observable: emits one `Lease` when held, releases on unsubscribe. */
  lock$(name: string, options?: LockOptions): Observable<Lease>;
  /** Runs `work` while holding the lock; completes after the work did and the release was confirmed. */
  withLock$<T>(name: string, work: (lease: Lease) => ObservableInput<T>, options?: LockOptions): Observable<T>;
  /** The promise form of `withLock$`. */
  withLock<T>(name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T>;
  /** Acquires and resolves with a handle to release (or `await using`). */
  acquire(name: string, options?: LockOptions): Promise<LockHandle>;
  /** Campaigns for a lock while subscribed: a lease per term won. */
  leader$(name: string, options?: LeaderOptions): Observable<Lease>;
  /** Whether anybody holds the lock. */
  isLocked(name: string): Promise<boolean>;
  /** Holds of `owner` (default: the enclosing `withLock`'s owner, else whoever holds it). */
  holdCount(name: string, owner?: string): Promise<number>;
  /** Remaining TTL in ms; -2 when not held, -1 when it never expires. */
  remainingTtl(name: string): Promise<number>;
  /** Deletes the lock (plain, fair or read-write) whoever holds it and wakes its waiters as a release does; true if it was held. */
  forceUnlock(name: string): Promise<boolean>;
}

export function lockMethods(core: ClientCore): LockMethods {
  return {
    lock$: (name, options) => lock$(core, name, options),
    withLock$: (name, work, options) => withLock$(core, name, work, options),
    withLock: (name, fn, options) => withLock(core, name, fn, options),
    acquire: (name, options) => acquire(core, name, options),
    leader$: (name, options) => leader$(core, name, options),
    isLocked: (name) => isLocked(core, name),
    holdCount: (name, owner) => holdCount(core, name, owner),
    remainingTtl: (name) => remainingTtl(core, name),
    forceUnlock: (name) => forceUnlock(core, name),
  };
}
