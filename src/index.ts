// Client
export { createLockClient, type LockClient } from './client/createLockClient.js';
export type { LockClientOptions } from './client/LockClientOptions.js';

// Redlock: one lock over independent masters
export { createRedlockClient, type RedlockClient } from './redlock/createRedlockClient.js';
export type { RedlockClientOptions } from './redlock/RedlockClientOptions.js';

// Leases and options
export type { Lease } from './engine/Lease.js';
export type { LockOptions } from './primitives/lock/lock.js';
export type { LockHandle } from './primitives/promise.js';
export type { LeaderOptions } from './primitives/leader.js';
export type { FairLockOptions } from './primitives/fairLock/fairLock.js';
export type { MultiLockOptions, MultiLease } from './primitives/multiLock/multiLock.js';
export type { ReadWriteLockOptions } from './primitives/readWriteLock/readWriteLock.js';
export type { Semaphore, SemaphoreAcquireOptions } from './primitives/semaphore/semaphore.js';
export type { PermitPool } from './primitives/semaphore/PermitPool.js';
export type { LeasedSemaphore, LeasedAcquireOptions } from './primitives/leasedSemaphore/leasedSemaphore.js';
export { MAX_LEASED_PERMITS } from './primitives/leasedSemaphore/leasedSemaphore.js';
export type { PermitLease } from './primitives/leasedSemaphore/PermitLease.js';
export type { CountDownLatch, LatchAwaitOptions } from './primitives/latch/latch.js';
export { withLease$ } from './primitives/withLease.js';

// Events
export type { LockEvent, LockEventType, LockKind } from './engine/events.js';

// Errors
export {
  LockError,
  LockTimeoutError,
  LockLostError,
  NotLockOwnerError,
  LockKeyTypeError,
  LockUpgradeError,
  ClientClosedError,
  LockBackendError,
  type LockLostReason,
  type LockBackendErrorCode,
} from './errors/index.js';

// Stores
export { redisStore, type RedisStoreOptions } from './store/redis/RedisStore.js';
export type { RedisLike, SubscriberLike, PipelineLike } from './store/redis/RedisLike.js';
export type { LockStore, StoreConnection, ChannelEvent, RunOptions } from './store/Store.js';
export type { Script, Reply } from './store/Script.js';

// Scheduling
export { monotonicScheduler } from './util/monotonicScheduler.js';
