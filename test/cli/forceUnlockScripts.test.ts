import type { Redis } from 'ioredis';
import { lastValueFrom } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORCE_UNLOCK_ARGS, fairLockForceUnlockScript } from '../../src/primitives/fairLock/forceUnlockScript.js';
import { fairLockKeys } from '../../src/primitives/fairLock/fairLockKeys.js';
import { fairArgv } from '../../src/primitives/fairLock/fairQueue.js';
import { latchOpenScript } from '../../src/cli/unlock/latchOpenScript.js';
import { leasedSemaphoreRevokeScript } from '../../src/cli/unlock/leasedSemaphoreRevokeScript.js';
import { readWriteLockForceUnlockScript } from '../../src/primitives/readWriteLock/forceUnlockScript.js';
import { monotonicScheduler, redisStore, type Script } from '../../src/index.js';
import type { MemoryDb } from '../../src/testing.js';
import { createMemoryStore } from '../../src/testing.js';
import { redisServerForSuite } from '../support/suiteRedis.js';

/** Sets up the same keys in memory and in Redis. */
interface Setup {
  memory(db: MemoryDb, now: number): void;
  redis(redis: Redis, now: number): Promise<unknown>;
}

type Dump = Record<string, unknown>;

function dumpMemory(db: MemoryDb): Dump {
  const dump: Dump = {};
  for (const key of db.keys().sort()) {
    const type = db.type(key);
    if (type === 'string') dump[key] = db.get(key);
    else if (type === 'hash') dump[key] = Object.fromEntries(db.hkeys(key).map((field) => [field, db.hget(key, field)]));
    else if (type === 'list') dump[key] = db.lrange(key);
    else if (type === 'zset') dump[key] = db.zrangeWithScores(key).map(([member]) => member);
  }
  return dump;
}

async function dumpRedis(redis: Redis): Promise<Dump> {
  const dump: Dump = {};
  for (const key of (await redis.keys('*')).sort()) {
    const type = await redis.type(key);
    if (type === 'string') dump[key] = await redis.get(key);
    else if (type === 'hash') dump[key] = await redis.hgetall(key);
    else if (type === 'list') dump[key] = await redis.lrange(key, 0, -1);
    else if (type === 'zset') dump[key] = await redis.zrange(key, 0, -1);
  }
  return dump;
}

const settle = <R>(promise: Promise<R>): Promise<{ reply?: R; error?: string }> =>
  promise.then(
    (reply) => ({ reply }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );

describe('unlock --force scripts: the Lua and its memory twin do the same', () => {
  const server = redisServerForSuite();
  let redis: Redis;
  beforeAll(() => {
    redis = server.client();
  });

  /** Runs `script` on both stores from the same state; answers both outcomes, which the caller compares too. */
  async function both<R>(setup: Setup, script: Script<R>, keys: readonly string[], args: (string | number)[] = ['publish']) {
    await redis.flushall();
    const now = Date.now();
    const store = createMemoryStore();
    setup.memory(store.db, now);
    await setup.redis(redis, now);
    const memory = await settle(lastValueFrom(store.connect().run(script, keys, args)));
    const connection = redisStore(redis).connect(monotonicScheduler);
    const onRedis = await settle(lastValueFrom(connection.run(script, keys, args)));
    await connection.close();
    const result = { memory: { ...memory, keys: dumpMemory(store.db) }, redis: { ...onRedis, keys: await dumpRedis(redis) } };
    expect(result.memory).toEqual(result.redis);
    return result.redis;
  }

  const fair = fairLockKeys('fair');
  const fairArgs = fairArgv({
    ...FORCE_UNLOCK_ARGS,
    waiterTimeoutMs: 0,
    publishCommand: 'publish',
    channelPrefix: fair.channelPrefix,
  });

  it('fair lock: drops the dead head waiters and deletes the lock', async () => {
    const outcome = await both(
      {
        memory: (db, now) => {
          db.hset('fair', 'x:1', '1');
          db.hset('rxlock_fair_waiters:{fair}', 'dead', '30000 0 w1 ');
          for (const [id, at] of [
            ['dead', now - 1_000],
            ['w:2', now + 40_000],
            ['w:3', now + 45_000],
          ] as const) {
            db.rpush('redisson_lock_queue:{fair}', id);
            db.zadd('redisson_lock_timeout:{fair}', at, id);
          }
        },
        redis: async (r, now) => {
          await r.hset('fair', 'x:1', '1');
          await r.hset('rxlock_fair_waiters:{fair}', 'dead', '30000 0 w1 ');
          await r.rpush('redisson_lock_queue:{fair}', 'dead', 'w:2', 'w:3');
          await r.zadd('redisson_lock_timeout:{fair}', now - 1_000, 'dead', now + 40_000, 'w:2', now + 45_000, 'w:3');
        },
      },
      fairLockForceUnlockScript,
      fair.list,
      fairArgs,
    );
    expect(outcome).toEqual({ reply: true, keys: { 'redisson_lock_queue:{fair}': ['w:2', 'w:3'], 'redisson_lock_timeout:{fair}': ['w:2', 'w:3'] } });
  });

  it('fair lock: refuses a key of another type and leaves it', async () => {
    const outcome = await both({ memory: (db) => void db.set('fair', 'x'), redis: (r) => r.set('fair', 'x') }, fairLockForceUnlockScript, fair.list, fairArgs);
    expect(outcome).toEqual({ error: 'fair string', keys: { fair: 'x' } });
  });

  const rwKeys = ['rw', 'redisson_rwlock:{rw}', 'rxlock_holds:{rw}', 'redisson_lock_queue:{rw}', 'redisson_lock_timeout:{rw}'];

  it('read-write lock: deletes a read lock with every reader’s timeout keys', async () => {
    const outcome = await both(
      {
        memory: (db) => {
          db.hset('rw', 'mode', 'read');
          db.hset('rw', 'a:1', '2');
          db.hset('rw', 'b:1', '1');
          for (const key of ['{rw}:a:1:rwlock_timeout:1', '{rw}:a:1:rwlock_timeout:2', '{rw}:b:1:rwlock_timeout:1']) db.set(key, '1');
          db.hset('rxlock_holds:{rw}', 'a:#1', '1');
          db.set('unrelated', '1');
        },
        redis: async (r) => {
          await r.hset('rw', 'mode', 'read', 'a:1', '2', 'b:1', '1');
          await r.mset('{rw}:a:1:rwlock_timeout:1', '1', '{rw}:a:1:rwlock_timeout:2', '1', '{rw}:b:1:rwlock_timeout:1', '1', 'unrelated', '1');
          await r.hset('rxlock_holds:{rw}', 'a:#1', '1');
        },
      },
      readWriteLockForceUnlockScript,
      rwKeys,
      ['publish', '{rw}'],
    );
    expect(outcome).toEqual({ reply: true, keys: { unrelated: '1' } });
  });

  it('read-write lock: deletes a write lock; a hash without mode is a plain lock, left to its own script', async () => {
    const write = await both(
      {
        memory: (db) => (db.hset('rw', 'mode', 'write'), db.hset('rw', 'a:1:write', '1'), undefined),
        redis: (r) => r.hset('rw', 'mode', 'write', 'a:1:write', '1'),
      },
      readWriteLockForceUnlockScript,
      rwKeys,
      ['publish', '{rw}'],
    );
    expect(write).toEqual({ reply: true, keys: {} });
    const plain = await both(
      { memory: (db) => void db.hset('rw', 'a:1', '1'), redis: (r) => r.hset('rw', 'a:1', '1') },
      readWriteLockForceUnlockScript,
      rwKeys,
      ['publish', '{rw}'],
    );
    expect(plain).toEqual({ reply: 'lock', keys: { rw: { 'a:1': '1' } } });
    const none = await both({ memory: () => undefined, redis: () => Promise.resolve() }, readWriteLockForceUnlockScript, rwKeys, ['publish', '{rw}']);
    expect(none).toEqual({ reply: false, keys: {} });
  });

  const leasedKeys = ['slots', '{slots}:timeout', 'redisson_sc:{slots}'];

  it('leased semaphore: every leased permit goes back to the count', async () => {
    const outcome = await both(
      {
        memory: (db, now) => {
          db.set('slots', '1');
          db.zadd('{slots}:timeout', now + 10_000, 'p1');
          db.zadd('{slots}:timeout', 922337203685477, 'p2');
        },
        redis: async (r, now) => {
          await r.set('slots', '1');
          await r.zadd('{slots}:timeout', now + 10_000, 'p1', 922337203685477, 'p2');
        },
      },
      leasedSemaphoreRevokeScript,
      leasedKeys,
    );
    expect(outcome).toEqual({ reply: 2, keys: { slots: '3' } });
    const nothingLeased = await both({ memory: (db) => void db.set('slots', '2'), redis: (r) => r.set('slots', '2') }, leasedSemaphoreRevokeScript, leasedKeys);
    expect(nothingLeased).toEqual({ reply: 0, keys: { slots: '2' } });
  });

  it('latch: opening deletes the count and leaves the op memory to expire; a key of another type stays', async () => {
    const keys = ['gate', 'redisson_countdownlatch__channel__{gate}'];
    expect(await both({ memory: (db) => void db.set('gate', '3'), redis: (r) => r.set('gate', '3') }, latchOpenScript, keys)).toEqual({
      reply: true,
      keys: {},
    });
    // A countDown re-sent after the opening (and maybe a new count) must still find its reply there.
    const counted = {
      memory: (db: MemoryDb, now: number) => {
        db.set('gate', '2');
        db.zadd('rxlock_ops:{gate}', now + 300_000, 'op-1');
        db.zadd('rxlock_ops:{gate}', now + 300_000, 'op-1=2');
      },
      redis: async (r: Redis, now: number) => {
        await r.set('gate', '2');
        await r.zadd('rxlock_ops:{gate}', now + 300_000, 'op-1', now + 300_000, 'op-1=2');
      },
    };
    expect(await both(counted, latchOpenScript, keys)).toEqual({ reply: true, keys: { 'rxlock_ops:{gate}': ['op-1', 'op-1=2'] } });
    expect(await both({ memory: () => undefined, redis: () => Promise.resolve() }, latchOpenScript, keys)).toEqual({ reply: false, keys: {} });
    expect(await both({ memory: (db) => void db.rpush('gate', 'x'), redis: (r) => r.rpush('gate', 'x') }, latchOpenScript, keys)).toEqual({
      error: 'gate list',
      keys: { gate: ['x'] },
    });
  });
});
