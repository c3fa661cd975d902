import { defer, from, switchMap, type Observable, type ObservableInput } from 'rxjs';
import { createLockClient } from '../client/createLockClient.js';
import type { LockEvent } from '../engine/events.js';
import type { Lease } from '../engine/Lease.js';
import type { LockOptions } from '../primitives/lock/lock.js';
import type { LeaseHandle } from '../primitives/acquireLease.js';
import type { RedisLike } from '../store/redis/RedisLike.js';
import { driverFor } from '../store/redis/driver/driverFor.js';
import type { RedisDriver } from '../store/redis/driver/RedisDriver.js';
import { callSite, describeValue } from '../util/describeValue.js';
import { assertDuration, assertOptions } from '../util/validate.js';
import { monotonicScheduler } from '../util/monotonicScheduler.js';
import { DistinctMasters } from './distinctMasters.js';
import { quorumOf } from './quorum.js';
import { REDLOCK_OPTION_KEYS, type RedlockClientOptions } from './RedlockClientOptions.js';
import { redlockStore } from './redlockStore.js';
import { CLIENT_DEFAULTS } from '../client/defaults.js';

/**
 * A lock held on a majority of independent Redis masters (Redlock). The same `lock$` / `withLock$` / `withLock` /
 * `acquire` as the lock client's, without fencing tokens: independent counters cannot give one order.
 */
export interface RedlockClient {
  /** This client's id, the `<clientId>` of every field it writes on every instance. */
  readonly clientId: string;
  /** How many instances a grant, a renewal and a release need: a majority. */
  readonly quorum: number;
  /**
   * Typed events, as the lock client's.
   *
   * @example
   * redlock.events$.subscribe((event) => {
   *   if (event.type === 'lost') console.warn(`lost ${event.name}: ${event.error.reason}`);
   * });
   */
  readonly events$: Observable<LockEvent>;
  /**
   * The lock as a cold Observable: emits one `Lease` once a majority granted it, releases everywhere on unsubscribe.
   *
   * @example
   * redlock.lock$('billing:run').pipe(switchMap((lease) => runBilling$(lease.signal))).subscribe({
   *   error: (error: unknown) => console.error('lost the lock or failed:', error),
   * });
   */
  lock$(name: string, options?: LockOptions): Observable<Lease>;
  /**
   * Runs `work` while holding the lock; completes after the work did and a majority confirmed the release.
   *
   * @example
   * redlock.withLock$('billing:run', () => runBilling$(), { waitMs: 5_000 }).subscribe({
   *   error: (error: unknown) => console.error('lost the lock, timed out or failed:', error),
   * });
   */
  withLock$<T>(name: string, work: (lease: Lease) => ObservableInput<T>, options?: LockOptions): Observable<T>;
  /**
   * The promise form of `withLock$`.
   *
   * @example
   * const invoices = await redlock.withLock('billing:run', (lease) => runBilling({ signal: lease.signal }));
   */
  withLock<T>(name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T>;
  /**
   * Acquires and resolves with a handle to release (or `await using`).
   *
   * @example
   * await using lease = await redlock.acquire('billing:run', { waitMs: 1_000 });
   * await runBilling({ signal: lease.signal });
   */
  acquire(name: string, options?: LockOptions): Promise<LeaseHandle>;
  /**
   * Releases every lease this client holds and closes the connections it opened on the instances.
   *
   * @example
   * await redlock.close();
   * await Promise.all(masters.map((master) => master.quit())); // the clients you passed stay open
   */
  close(): Promise<void>;
}

const WHERE = 'createRedlockClient';

/** The lock client's defaults for the drift allowance, which the vote's validity check must share. */

/**
 * Creates a Redlock client over independent Redis masters (Redis clients, ioredis or node-redis, one per
 * master; 3 or 5 is usual). Every operation runs the lock's own scripts on all of them and decides by majority.
 *
 * @example
 * const masters = ['redis://redis-a:6379', 'redis://redis-b:6379', 'redis://redis-c:6379'].map((url) => new Redis(url));
 * const redlock = createRedlockClient(masters, { instanceTimeoutMs: 200 });
 */
export function createRedlockClient(instances: readonly RedisLike[], options: RedlockClientOptions = {}): RedlockClient {
  const drivers = checkInstances(instances);
  assertOptions(options, REDLOCK_OPTION_KEYS, WHERE);
  const { instanceTimeoutMs = 500, ...common } = options;
  assertDuration(instanceTimeoutMs, 'instanceTimeoutMs', WHERE, { min: 1 });
  const commandTimeoutMs = common.commandTimeoutMs ?? CLIENT_DEFAULTS.commandTimeoutMs;
  if (typeof commandTimeoutMs === 'number' && instanceTimeoutMs >= commandTimeoutMs) {
    throw new RangeError(`rxlock: ${WHERE}: option "instanceTimeoutMs" (${instanceTimeoutMs}) must be shorter than "commandTimeoutMs" (${commandTimeoutMs})`);
  }
  const store = redlockStore(drivers, {
    instanceTimeoutMs,
    driftFactor: common.driftFactor ?? CLIENT_DEFAULTS.driftFactor,
    driftMs: common.driftMs ?? CLIENT_DEFAULTS.driftMs,
  });
  // No hand-off reservations: each instance would reserve the lock for its own longest waiter, and waiters
  // that queued in different orders on different instances would split the vote.
  const client = createLockClient({ ...common, handoffMs: 0, store });
  const masters = new DistinctMasters(drivers, { totalMs: commandTimeoutMs, straggleMs: instanceTimeoutMs }, common.scheduler ?? monotonicScheduler);
  let closed = false;
  // Once closed, the lock client's ClientClosedError comes first, and nothing is sent.
  const distinct = (method: string, name: string): Promise<void> | undefined => (closed ? undefined : masters.check(method, name));
  /** Runs `call` once the masters are known to be distinct servers (at once after the first use). */
  const checked$ = <T>(method: string, name: string, call: () => Observable<T>): Observable<T> => {
    const pending = distinct(method, name);
    return pending === undefined ? call() : from(pending).pipe(switchMap(call));
  };
  return {
    clientId: client.clientId,
    quorum: quorumOf(instances.length),
    events$: client.events$,
    lock$: (name, lockOptions) =>
      defer(() => {
        refuseFencing('lock$', name, lockOptions);
        return checked$('lock$', name, () => client.lock$(name, lockOptions));
      }),
    withLock$: (name, work, lockOptions) =>
      defer(() => {
        refuseFencing('withLock$', name, lockOptions);
        return checked$('withLock$', name, () => client.withLock$(name, work, lockOptions));
      }),
    withLock: async (name, fn, lockOptions) => {
      refuseFencing('withLock', name, lockOptions);
      await distinct('withLock', name);
      return client.withLock(name, fn, lockOptions);
    },
    acquire: async (name, lockOptions) => {
      refuseFencing('acquire', name, lockOptions);
      await distinct('acquire', name);
      return client.acquire(name, lockOptions);
    },
    close: () => {
      closed = true;
      masters.close();
      return client.close();
    },
  };
}

function checkInstances(instances: unknown): RedisDriver[] {
  if (!Array.isArray(instances) || instances.length === 0) {
    throw new TypeError(
      `rxlock: ${WHERE}: instances must be a non-empty array of Redis clients (ioredis or node-redis), one per master, got ${describeValue(instances)}`,
    );
  }
  const drivers: RedisDriver[] = [];
  // An index loop, not forEach: forEach skips the holes of a sparse array, which would then count as masters.
  for (let index = 0; index < instances.length; index++) {
    const instance: unknown = instances[index];
    drivers.push(driverFor(instance, WHERE, `instances[${index}]`));
    if (instances.indexOf(instance) !== index) {
      throw new TypeError(`rxlock: ${WHERE}: instances[${index}] is the same client as instances[${instances.indexOf(instance)}]; each master must count once`);
    }
  }
  return drivers;
}

function refuseFencing(method: string, name: unknown, options: LockOptions | undefined): void {
  if (options?.fencing === true) {
    throw new TypeError(
      `rxlock: ${callSite(method, name)}: option "fencing" is not available on a Redlock client: each instance counts its own tokens, ` +
        'so no single order exists; fence with a single Redis (or the resource’s own versioning)',
    );
  }
}
