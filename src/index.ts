/**
 * Distributed locks and synchronizers on Redis where a lock is an RxJS Observable: subscribing acquires,
 * the stream emits a `Lease` while it is held, unsubscribing releases, and a lost lock is an error.
 * Start with {@link createLockClient}.
 *
 * @module rxlock
 */
// Client
export { createLockClient, type LockClient } from './client/createLockClient.js';
export type { LockClientOptions, CommonOptions } from './client/LockClientOptions.js';

// Redlock: one lock over independent masters
export { createRedlockClient, type RedlockClient } from './redlock/createRedlockClient.js';
export type { RedlockClientOptions } from './redlock/RedlockClientOptions.js';

// Leases and options
export type { Lease } from './engine/Lease.js';
export type { LockOptions } from './primitives/lock/lock.js';
export { acquireLease, type LeaseHandle, type LeasePromiseOptions } from './primitives/acquireLease.js';
export type { LeaderOptions, LeaderTerms } from './primitives/leader.js';
export type { FairLockOptions } from './primitives/fairLock/fairLock.js';
export type { SpinLockOptions } from './primitives/spinLock/spinLock.js';
export type { BackOff } from './primitives/spinLock/backOff.js';
export type { MultiLockOptions, MultiLease } from './primitives/multiLock/multiLock.js';
export type { GroupLockOptions } from './primitives/groupLock/groupLock.js';
export { MAX_GROUP_VALUES } from './primitives/groupLock/groupLock.js';
export type { GroupValue } from './primitives/groupLock/valueField.js';
export type { ReadWriteLockOptions } from './primitives/readWriteLock/readWriteLock.js';
export type { Semaphore, SemaphoreAcquireOptions, TrySetPermitsOptions } from './primitives/semaphore/semaphore.js';
export type { PermitPool } from './primitives/semaphore/PermitPool.js';
export type { LeasedSemaphore, LeasedAcquireOptions } from './primitives/leasedSemaphore/leasedSemaphore.js';
export { MAX_LEASED_PERMITS } from './primitives/leasedSemaphore/leasedSemaphore.js';
export type { PermitLease } from './primitives/leasedSemaphore/PermitLease.js';
export type { CountDownLatch, LatchAwaitOptions } from './primitives/latch/latch.js';
export { withLease$, withLease } from './primitives/withLease.js';

// Events
export type { LockEvent, LockEventType, LockKind, EventBase } from './engine/events.js';

// Errors
export {
  LockError,
  LockTimeoutError,
  LockLostError,
  LockKeyTypeError,
  LockUpgradeError,
  LockReentryError,
  ClientClosedError,
  LockBackendError,
  type LockLostReason,
  type LockLostErrorOptions,
  type LockBackendErrorCode,
} from './errors/index.js';

// Stores
export { redisStore, type RedisStoreOptions } from './store/redis/RedisStore.js';
export type { ShardedPubSubSetting } from './store/redis/pubSubMode.js';
export type {
  RedisLike,
  IoRedisLike,
  NodeRedisLike,
  NodeRedisClientLike,
  NodeRedisClusterLike,
  NodeRedisSentinelLike,
  NodeRedisCommandOptions,
  NodeRedisListener,
  SubscriberLike,
  PipelineLike,
} from './store/redis/RedisLike.js';
// The store port, for a store of your own (docs/stores.md): what the engine sends and what it expects back.
export type { LockStore, StoreConnection, ChannelEvent, RunOptions, ReplyObserver, ScriptCall, ServerInfo } from './store/Store.js';
export type { Script, Reply } from './store/Script.js';
export { StoreError, type StoreErrorCode } from './store/StoreError.js';
export { classifyReplyError } from './store/classifyReplyError.js';

// Scheduling
export { monotonicScheduler } from './util/monotonicScheduler.js';
