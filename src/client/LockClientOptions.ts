import type { SchedulerLike } from 'rxjs';
import type { LockStore } from '../store/Store.js';
import type { RedisLike } from '../store/redis/RedisLike.js';
import { optionKeys } from '../util/optionKeys.js';

/** The settings of `createLockClient`, beside its `redis` or `store`. */
export interface CommonOptions {
  /**
   * TTL of a lock held without `leaseMs`; the watchdog renews it every third of this while subscribed.
   * @default 30000 (Redisson's lockWatchdogTimeout)
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * Times every renewal, wake-up fallback and timeout, and reads the time. Pass the `TestScheduler` to run
   * in virtual time.
   * @default asyncScheduler's timers with a monotonic now(), so wall-clock jumps change nothing
   */
  scheduler?: SchedulerLike | undefined;
  /**
   * This client's id: the first half of every `<clientId>:<owner>` field it writes. Must be unique among
   * clients sharing a Redis, and may not contain ":".
   * @default a random UUID, like Redisson's
   */
  clientId?: string | undefined;
  /**
   * After a server restart without persistence every lock is gone, and a holder learns of it only at its next
   * renewal: meanwhile a second holder could enter. With this set (to the longest lease a client may hold:
   * `watchdogTimeoutMs`, or your longest `leaseMs`), this client grants nothing until the server has been up
   * this long; it looks at the server (`INFO server`) before its first acquisition and after every reconnect.
   * Other clients of the same locks need the same setting.
   * @default 0 (off: a server that just started, as in tests, grants at once)
   */
  restartGuardMs?: number | undefined;
  /**
   * Prepended to every lock name. Keep it empty to share names with Redisson.
   * @default ''
   */
  keyPrefix?: string | undefined;
  /**
   * Share of the TTL kept as a safety margin: a lease's local deadline is `sent + ttl - (ttl * driftFactor + driftMs)`.
   * It covers clock-rate differences between client and server and the time a late timer needs to tear
   * the work down. The default is Redlock's and Redisson's RedLock's.
   * @default 0.01
   */
  driftFactor?: number | undefined;
  /**
   * Fixed part of the safety margin, in ms (see `driftFactor`). Covers timer and event-loop lateness.
   * @default 2
   */
  driftMs?: number | undefined;
  /**
   * How long a command may go unanswered before its outcome counts as unknown: an acquire is then
   * compensated by an owner-checked release, a release is retried. ioredis itself never gives up on an
   * open but silent socket.
   * @default 5000
   */
  commandTimeoutMs?: number | undefined;
  /**
   * After an unlock that somebody listened to, the lock is reserved this long for a waiter, so that a
   * holder that releases and re-acquires in a loop cannot starve the waiters. 0 turns it off.
   * @default 100
   */
  handoffMs?: number | undefined;
  /**
   * Fair lock: how long a waiter may go without a sign of life before it loses its place in line. An rxlock
   * waiter refreshes its place every third of this, so only one whose client died (or was cut off this long)
   * is dropped, and it holds the line up at most this long once it reaches the head: a third of what a dead
   * holder costs with the default watchdog. Redisson's waiters never refresh, which is why its default grew
   * from 5000 to 300000 (#2883, #3004). Every client sharing a fair lock, Redisson's included, should use the
   * same value: each grant and each waiter that leaves shortens the deadlines behind by one share.
   * @default 10000
   */
  fairLockWaiterTimeoutMs?: number | undefined;
  /**
   * Wait for this many replicas to acknowledge every acquire, renewal and release (WAIT). When none
   * acknowledges in time, an acquire is released and fails with `LockBackendError('no-replicas')`.
   * @default 0 (no replica check)
   */
  replicas?: number | undefined;
  /**
   * How long WAIT may take (see `replicas`).
   * @default 1000 (Redisson's slavesSyncTimeout)
   */
  replicaTimeoutMs?: number | undefined;
}

/** Options of `createLockClient`: a Redis client (`redis`: ioredis, iovalkey or node-redis) or a store (`store`), plus the common settings. */
export type LockClientOptions = CommonOptions &
  (
    | {
        /**
         * A Redis client: ioredis 5/6 `Redis` or `Cluster`, iovalkey, or node-redis 5 (`createClient`, `createCluster`,
         * `createSentinel`, connected). The lock client runs its scripts on it and opens one connection of its own for
         * pub/sub, which `close()` closes (and which closes when yours ends); the one you pass stays open.
         */
        redis: RedisLike;
        /** Not with `redis`. */
        store?: undefined;
      }
    | {
        /** A store: `createMemoryStore()` from `rxlock/testing`, or `redisStore(redis)`. */
        store: LockStore;
        /** Not with `store`. */
        redis?: undefined;
      }
  );

export const CLIENT_OPTION_KEYS: readonly string[] = optionKeys<CommonOptions & { redis: unknown; store: unknown }>({
  redis: true,
  store: true,
  watchdogTimeoutMs: true,
  scheduler: true,
  clientId: true,
  keyPrefix: true,
  restartGuardMs: true,
  driftFactor: true,
  driftMs: true,
  commandTimeoutMs: true,
  handoffMs: true,
  fairLockWaiterTimeoutMs: true,
  replicas: true,
  replicaTimeoutMs: true,
});
