import type { Observable, ObservableInput } from 'rxjs';
import type { LeaseHandle } from '../acquireLease.js';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { leader$, type LeaderOptions, type LeaderTerms } from '../leader.js';
import { acquire, withLock } from '../promise.js';
import { withLock$ } from '../withLock.js';
import { lock$, type LockOptions } from './lock.js';
import { forceUnlock, holdCount, isLocked, remainingTtl } from './queries.js';

/** The reentrant lock's part of the client. */
export interface LockMethods {
  /**
   * A reentrant lock (Redisson's RLock) as a cold Observable: emits one `Lease` when held, releases on unsubscribe.
   *
   * @example
   * // Consumes the queue for as long as this instance holds the lock; a lost lock tears the consumer down.
   * client.lock$('queue:emails').pipe(switchMap((lease) => consumeEmails$(lease.signal))).subscribe({
   *   error: (error: unknown) => console.error('lost the lock or failed:', error),
   * });
   */
  lock$(name: string, options?: LockOptions): Observable<Lease>;
  /**
   * Runs `work` while holding the lock; completes after the work did and the release was confirmed.
   *
   * @example
   * client.withLock$('account:42', () => applyPayments$, { waitMs: 5_000 }).subscribe({
   *   error: (error: unknown) => console.error('lost the lock, timed out or failed:', error),
   * });
   */
  withLock$<T>(name: string, work: (lease: Lease) => ObservableInput<T>, options?: LockOptions): Observable<T>;
  /**
   * The promise form of `withLock$`.
   *
   * @example
   * // Rejects with LockLostError if the lock is lost before the callback settles; lease.signal aborts then.
   * const balance = await client.withLock('account:42', (lease) => recompute({ signal: lease.signal }));
   */
  withLock<T>(name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T>;
  /**
   * Acquires and resolves with a handle to release (or `await using`).
   *
   * @example
   * {
   *   await using lease = await client.acquire('account:42', { waitMs: 1_000 });
   *   await recompute({ signal: lease.signal });
   * } // released here
   *
   * const handle = await client.acquire('account:42');
   * try {
   *   await recompute({ signal: handle.signal });
   * } finally {
   *   await handle.release(); // rejects with LockLostError if the lock was lost meanwhile
   * }
   */
  acquire(name: string, options?: LockOptions): Promise<LeaseHandle>;
  /**
   * Campaigns for leadership while subscribed: emits a lease per term won (a term ends when its lease's
   * `signal` aborts) and campaigns again after a loss.
   *
   * @example
   * client.leader$('scheduler').subscribe({
   *   next: (term) => term.signal.addEventListener('abort', () => console.log('no longer the leader')),
   *   error: (error: unknown) => console.error('campaign stopped:', error),
   * });
   */
  leader$(name: string, options?: LeaderOptions): LeaderTerms;
  /**
   * Campaigns for leadership while subscribed and runs `work(term)` in each term won, emitting its values: a
   * lost term tears the work down, the next term runs it again.
   *
   * @example
   * // One instance of many sends the hourly report.
   * client.leader$('cron:hourly-report', () => interval(3_600_000).pipe(switchMap(() => sendReport()))).subscribe({
   *   error: (error: unknown) => console.error('campaign stopped:', error),
   * });
   */
  leader$<T>(name: string, work: (term: Lease) => ObservableInput<T>, options?: LeaderOptions): Observable<T>;
  /**
   * Whether anybody holds the lock.
   *
   * @example
   * if (await client.isLocked('account:42')) console.log('account 42 is being recomputed');
   */
  isLocked(name: string): Promise<boolean>;
  /**
   * Holds of `owner` (default: the enclosing `withLock`'s owner, else whoever holds it).
   *
   * @example
   * await client.withLock('account:42', async () => {
   *   await client.withLock('account:42', async () => {
   *     console.log(await client.holdCount('account:42')); // 2: the nested call re-entered
   *   });
   * });
   */
  holdCount(name: string, owner?: string): Promise<number>;
  /**
   * Remaining TTL in ms; -2 when not held, -1 when it never expires.
   *
   * @example
   * const ttlMs = await client.remainingTtl('account:42');
   * if (ttlMs === -2) console.log('nobody holds it');
   */
  remainingTtl(name: string): Promise<number>;
  /**
   * Deletes the lock (plain, fair or read-write) whoever holds it and wakes its waiters as a release does; true if it was held.
   * Its holder learns of it at its next renewal, with `LockLostError` (`not-held`).
   *
   * @example
   * // An operator's way out of a lock whose holder is stuck.
   * const wasHeld = await client.forceUnlock('account:42');
   */
  forceUnlock(name: string): Promise<boolean>;
}

export function lockMethods(core: ClientCore): LockMethods {
  return {
    lock$: (name, options) => lock$(core, name, options),
    withLock$: (name, work, options) => withLock$(core, name, work, options),
    withLock: (name, fn, options) => withLock(core, name, fn, options),
    acquire: (name, options) => acquire(core, name, options),
    leader$: ((name: string, workOrOptions?: ((term: Lease) => ObservableInput<unknown>) | LeaderOptions, options?: LeaderOptions) =>
      typeof workOrOptions === 'function' ? leader$(core, name, workOrOptions, options) : leader$(core, name, workOrOptions)) as LockMethods['leader$'],
    isLocked: (name) => isLocked(core, name),
    holdCount: (name, owner) => holdCount(core, name, owner),
    remainingTtl: (name) => remainingTtl(core, name),
    forceUnlock: (name) => forceUnlock(core, name),
  };
}
