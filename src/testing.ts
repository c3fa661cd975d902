// The memory store: Redis semantics on the scheduler's clock, for marble tests and users' own tests.
export { createMemoryStore, MemoryStore, type MemoryStoreOptions, type MemoryFault } from './store/memory/MemoryStore.js';
export type { MemoryDb, RedisType } from './store/memory/MemoryDb.js';
