import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createLockClient, LockReentryError, LockTimeoutError, type LockClient } from '../src/index.js';
import { RedissonPeer } from './support/redisson.js';
import { redisServerForSuite } from './support/suiteRedis.js';

/**
 * RedissonNonReentrantLock.tryLockInnerAsync, as in redisson/src/main/java/org/redisson/RedissonNonReentrantLock.java
 * (Redisson 4.4+, read at 66863978): KEYS name; ARGV leaseMs, field, the error text.
 */
const REDISSON_NON_REENTRANT_LUA =
  "if redis.call('exists', KEYS[1]) == 0 then " +
  "redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
  "redis.call('pexpire', KEYS[1], ARGV[1]); " +
  'return nil; ' +
  'end; ' +
  "if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then " +
  'return redis.error_reply(ARGV[3]); ' +
  'end; ' +
  "return redis.call('pttl', KEYS[1]);";

/**
 * RedissonSpinLock.tryLockInnerAsync, as in redisson/src/main/java/org/redisson/RedissonSpinLock.java (same commit):
 * RLock's own acquire, polled with back-off instead of a subscription.
 */
const REDISSON_SPIN_LUA =
  "if (redis.call('exists', KEYS[1]) == 0) then " +
  "redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
  "redis.call('pexpire', KEYS[1], ARGV[1]); " +
  'return nil; ' +
  'end; ' +
  "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then " +
  "redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
  "redis.call('pexpire', KEYS[1], ARGV[1]); " +
  'return nil; ' +
  'end; ' +
  "return redis.call('pttl', KEYS[1]);";

describe('Redisson 4.x non-reentrant and spin locks share a name with rxlock', () => {
  const server = redisServerForSuite();
  let redis: Redis;
  let client: LockClient;
  const peer = (): RedissonPeer => new RedissonPeer(redis);

  beforeAll(() => {
    redis = server.client();
    client = createLockClient({ redis: server.client(), clientId: 'node' });
  });
  afterAll(async () => {
    await client.close();
    redis.disconnect();
  });

  it('Redisson’s non-reentrant lock excludes rxlock, and refuses its own thread again with NON_REENTRANT_REACQUIRE', async () => {
    const field = peer().field(1);
    expect(await redis.eval(REDISSON_NON_REENTRANT_LUA, 1, 'nr', 30_000, field, 'NON_REENTRANT_REACQUIRE')).toBeNull();
    await expect(redis.eval(REDISSON_NON_REENTRANT_LUA, 1, 'nr', 30_000, field, 'NON_REENTRANT_REACQUIRE')).rejects.toThrow('NON_REENTRANT_REACQUIRE');
    await expect(firstValueFrom(client.lock$('nr', { waitMs: 0, reentrant: false }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.hget('nr', field)).toBe('1');
    expect(await peer().unlock('nr', 1)).toBe(1);
  });

  it('rxlock’s non-reentrant lock excludes Redisson’s, and refuses its own owner again with LockReentryError', async () => {
    const held = await client.acquire('nr2', { owner: 'job', reentrant: false });
    expect(Number(await redis.eval(REDISSON_NON_REENTRANT_LUA, 1, 'nr2', 30_000, peer().field(7), 'NON_REENTRANT_REACQUIRE'))).toBeGreaterThan(0);
    await expect(client.acquire('nr2', { owner: 'job', reentrant: false })).rejects.toBeInstanceOf(LockReentryError);
    expect(await redis.hget('nr2', 'node:job')).toBe('1');
    await held.release();
  });

  it('rxlock’s spin lock waits while Redisson’s spin lock holds, and takes it once Redisson unlocks, without pub/sub', async () => {
    const field = peer().field(3);
    expect(await redis.eval(REDISSON_SPIN_LUA, 1, 'spin', 30_000, field)).toBeNull();
    const spinning = firstValueFrom(client.spinLock$('spin', { backOff: { initialMs: 5, maxMs: 20 } }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await redis.pubsub('CHANNELS', '*spin*')).toEqual([]);
    expect(await peer().unlock('spin', 3)).toBe(1);
    const lease = await spinning;
    expect(lease.name).toBe('spin');
    // firstValueFrom released it; Redisson's spin lock gets it at once.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await redis.eval(REDISSON_SPIN_LUA, 1, 'spin', 30_000, field)).toBeNull();
    expect(await peer().unlock('spin', 3)).toBe(1);
  });
});
