import { randomUUID } from 'node:crypto';
import { REDISSON_LOCK_LUA, REDISSON_UNLOCK_LUA, RedissonPeer } from '../../test/support/redisson.js';
import type { Contender } from './Contender.js';
import { scriptsWorker, type LockScripts } from './lockScripts.js';

const LEASE_MS = 30_000;

/** Redisson's RLock acquire and unlock scripts, called as Redisson calls them. */
export const REDISSON_LOCK_SCRIPTS: LockScripts = {
  acquireLua: REDISSON_LOCK_LUA,
  releaseLua: REDISSON_UNLOCK_LUA,
  acquire: (key, field) => [1, key, LEASE_MS, field],
  release: (key, field) => [2, key, RedissonPeer.channel(key), 0, LEASE_MS, field],
  granted: (reply) => reply === null,
};

/**
 * Not a contender users would pick: Redisson's own RLock acquire and unlock scripts (the shortest version of
 * the data layout rxlock shares with it), straight through ioredis. Next to "rxlock scripts, no engine" it
 * shows how much of the distance to the floor the layout itself costs. Uncontended only, like the floor.
 */
export const redissonScripts: Contender = {
  id: 'redisson-scripts',
  label: 'Redisson scripts, no engine',
  settings:
    "Redisson's RLock acquire (EXISTS or HEXISTS, HINCRBY, PEXPIRE) and unlock (HEXISTS, HINCRBY, DEL, PUBLISH `0` on `redisson_lock__channel:{key}`) as Redisson 3.x sent them before its unlock latch (which adds a GET, a SET and a later DEL), by EVALSHA (loaded before the window), field `<uuid>:1`, lease 30000, from a plain async loop. Not a lock users would write: the least a client of this data layout sends. Uncontended only.",
  excludes: false,
  unavailable: () => Promise.resolve(undefined),
  open: ({ key, connect }) => scriptsWorker(connect(), REDISSON_LOCK_SCRIPTS, key, `${randomUUID()}:1`),
};
