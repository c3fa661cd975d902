/**
 * The in-memory store: Redis's semantics on the client's scheduler clock, so that code taking locks can be
 * tested without a Redis, in virtual time with RxJS's `TestScheduler`: `createLockClient({ store:
 * createMemoryStore(), scheduler })`.
 *
 * @module rxlock/testing
 */
export { createMemoryStore, MemoryStore, type MemoryStoreOptions, type MemoryFault } from './store/memory/MemoryStore.js';
export type { MemoryDb, RedisType } from './store/memory/MemoryDb.js';
// A TestScheduler whose run() stops at a bound instead of spinning on a lock that is never released.
export { createTestScheduler, VirtualTimeLimitError, type TestSchedulerOptions } from './testing/createTestScheduler.js';
