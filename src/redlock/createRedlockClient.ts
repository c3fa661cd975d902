import { defer, from, switchMap, type Observable, type ObservableInput } from 'rxjs';
import { createLockClient } from '../client/createLockClient.js';
import type { LockEvent } from '../engine/events.js';
import type { Lease } from '../engine/Lease.js';
import type { LockOptions } from '../primitives/lock/lock.js';
import type { LockHandle } from '../primitives/promise.js';
import type { RedisLike } from '../store/redis/RedisLike.js';
import { assertRedisClient } from '../store/redis/assertRedisClient.js';
import { callSite, describeValue } from '../util/describeValue.js';
import { assertDuration, assertOptions } from '../util/validate.js';
import { monotonicScheduler } from '../util/monotonicScheduler.js';
import { DistinctMasters } from './distinctMasters.js';
import { quorumOf } from './quorum.js';
import { REDLOCK_OPTION_KEYS, type RedlockClientOptions } from './RedlockClientOptions.js';
import { redlockStore } from './redlockStore.js';

/**
 * A lock held on a majority of independent Redis masters (Redlock). The same `lock$` / `withLock$` / `withLock` /
 * `acquire` as the lock client's, without fencing tokens: independent counters cannot give one order.
 */
export interface RedlockClient {
  /** This client's id, the `<clientId>` of every field it writes on every instance. */
  readonly clientId: string;
  /** How many instances a grant, a renewal and a release need: a majority. */
  readonly quorum: number;
  /** Typed events, as the lock client's. */
  readonly events$: Observable<LockEvent>;
  /** The lock as a cold Observable: emits one `Lease` once a majority granted it, releases everywhere on unsubscribe. */
  lock$(name: string, options?: LockOptions): Observable<Lease>;
  /** Runs `work` while holding the lock; completes after the work did and a majority confirmed the release. */
  withLock$<T>(name: string, work: (lease: Lease) => ObservableInput<T>, options?: LockOptions): Observable<T>;
  /** The promise form of `withLock$`. */
  withLock<T>(name: string, fn: (lease: Lease) => Promise<T> | T, options?: LockOptions): Promise<T>;
  /** Acquires and resolves with a handle to release (or `await using`). */
  acquire(name: string, options?: LockOptions): Promise<LockHandle>;
  /** Releases every lease this client holds and closes the connections it opened on the instances. */
  close(): Promise<void>;
}

const WHERE = 'createRedlockClient';

/** The lock client's defaults for the drift allowance, which the vote's validity check must share. */
const DEFAULT_DRIFT_FACTOR = 0.01;
const DEFAULT_DRIFT_MS = 2;
const DEFAULT_COMMAND_TIMEOUT_MS = 5_000;

/**
 * Creates a Redlock client over independent Redis masters (ioredis clients, one per master; 3 or 5 is usual).
 * Every operation runs the lock's own scripts on all of them and decides by majority.
 */
export function createRedlockClient(instances: readonly RedisLike[], options: RedlockClientOptions = {}): RedlockClient {
  checkInstances(instances);
  assertOptions(options, REDLOCK_OPTION_KEYS, WHERE);
  const { instanceTimeoutMs = 500, ...common } = options;
  assertDuration(instanceTimeoutMs, 'instanceTimeoutMs', WHERE, { min: 1 });
  const commandTimeoutMs = common.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  if (typeof commandTimeoutMs === 'number' && instanceTimeoutMs >= commandTimeoutMs) {
    throw new RangeError(`rxlock: ${WHERE}: option "instanceTimeoutMs" (${instanceTimeoutMs}) must be shorter than "commandTimeoutMs" (${commandTimeoutMs})`);
  }
  const store = redlockStore(instances, {
    instanceTimeoutMs,
    driftFactor: common.driftFactor ?? DEFAULT_DRIFT_FACTOR,
    driftMs: common.driftMs ?? DEFAULT_DRIFT_MS,
  });
  // No hand-off reservations: each instance would reserve the lock for its own longest waiter, and waiters
  // that queued in different orders on different instances would split the vote.
  const client = createLockClient({ ...common, handoffMs: 0, store });
  const masters = new DistinctMasters(instances, { totalMs: commandTimeoutMs, straggleMs: instanceTimeoutMs }, common.scheduler ?? monotonicScheduler);
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

function checkInstances(instances: unknown): asserts instances is readonly RedisLike[] {
  if (!Array.isArray(instances) || instances.length === 0) {
    throw new TypeError(`rxlock: ${WHERE}: instances must be a non-empty array of ioredis clients, one per master, got ${describeValue(instances)}`);
  }
  // An index loop, not forEach: forEach skips the holes of a sparse array, which would then count as masters.
  for (let index = 0; index < instances.length; index++) {
    const instance: unknown = instances[index];
    assertRedisClient(instance, WHERE, `instances[${index}]`);
    if (instances.indexOf(instance) !== index) {
      throw new TypeError(`rxlock: ${WHERE}: instances[${index}] is the same client as instances[${instances.indexOf(instance)}]; each master must count once`);
    }
  }
}

function refuseFencing(method: string, name: unknown, options: LockOptions | undefined): void {
  if (options?.fencing === true) {
    throw new TypeError(
      `rxlock: ${callSite(method, name)}: option "fencing" is not available on a Redlock client: each instance counts its own tokens, ` +
        'so no single order exists; fence with a single Redis (or the resource’s own versioning)',
    );
  }
}
