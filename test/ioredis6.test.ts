import { Redis as Redis6 } from 'ioredis6';
import { firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { createLockClient, LockKeyTypeError, LockTimeoutError } from '../src/index.js';
import { eventually, sleep } from './support/leaks.js';
import { redisServerForSuite } from './support/suiteRedis.js';

// ioredis 6 speaks RESP3 by default and raises different error classes; the same behaviour must hold.
describe('with ioredis 6 (RESP3)', () => {
  const server = redisServerForSuite();
  const connections: Redis6[] = [];
  const connect = (): Redis6 => {
    const redis = new Redis6({ port: server.port, host: '127.0.0.1' });
    connections.push(redis);
    return redis;
  };
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
  });

  it('acquires, renews, wakes a waiter, fences and refuses a wrong type', async () => {
    const holder = createLockClient({ redis: connect(), watchdogTimeoutMs: 300 });
    const waiter = createLockClient({ redis: connect() });
    const handle = await holder.acquire('six', { fencing: true });
    expect(handle.token).toBe(1);
    await sleep(700);
    expect(handle.held).toBe(true);
    await expect(firstValueFrom(waiter.lock$('six', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const woken = waiter.withLock('six', (lease) => lease.token, { fencing: true });
    await sleep(50);
    await handle.release();
    expect(await woken).toBe(2);

    const admin = connect();
    await admin.set('six-string', 'x');
    await expect(firstValueFrom(waiter.lock$('six-string'))).rejects.toBeInstanceOf(LockKeyTypeError);
    await admin.del('six-string', 'redisson_lock_token:{six}');
    await Promise.all([holder.close(), waiter.close()]);
    expect(await eventually(async () => (await admin.keys('*')).length === 0, 1_000)).toBe(true);
    expect(await admin.pubsub('CHANNELS')).toEqual([]);
  });
});
