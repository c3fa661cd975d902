import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLockClient, type LockClient, type Script } from '../src/index.js';
import { countDownScript, trySetCountScript } from '../src/primitives/latch/latchScripts.js';
import { addPermitsScript, trySetPermitsScript } from '../src/primitives/semaphore/adminScripts.js';
import { eventually, isOpMemory } from './support/leaks.js';
import { startProxy, type TcpProxy } from './support/proxy.js';
import { redisServerForSuite } from './support/suiteRedis.js';

/** The first bytes of a script call by SHA, as they cross the proxy. */
const calls = (script: Script<unknown>) => (request: Buffer) => request.includes(script.sha1);

describe('counts whose reply a dropped connection lost, re-sent by ioredis once it reconnects', () => {
  const server = redisServerForSuite();
  let admin: Redis;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(() => {
    admin = server.client();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    const keys = await admin.keys('*');
    const ttls = await Promise.all(keys.map((key) => admin.pttl(key)));
    expect(keys.filter((key, i) => !isOpMemory(key, ttls[i] ?? -1))).toEqual([]);
    await admin.flushall();
  });

  /** A client whose connection runs through a proxy the test controls; it reconnects 100 ms after a drop. */
  async function proxiedClient(): Promise<{ client: LockClient; proxy: TcpProxy }> {
    const proxy = await startProxy(server.port);
    const redis = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 100 });
    redis.on('error', () => undefined);
    const client = createLockClient({ redis, clientId: 'dropped' });
    cleanups.push(async () => {
      await client.close();
      redis.disconnect();
      await proxy.close();
    });
    // Each script's first call is an EVAL; from then on it is the EVALSHA the proxy looks for.
    const pool = client.semaphore('warm-up-pool');
    await pool.trySetPermits(1);
    await pool.addPermits(1);
    await pool.delete();
    const latch = client.latch('warm-up-latch');
    await latch.trySetCount(1);
    await latch.countDown();
    return { client, proxy };
  }

  it('trySetPermits, addPermits and trySetCount answer what their first run did', async () => {
    const { client, proxy } = await proxiedClient();
    const dropping = async <T>(script: Script<unknown>, operation: Promise<T>): Promise<T> => {
      const dropped = proxy.dropRepliesTo(calls(script));
      const result = await operation;
      expect(await dropped).toBe(1);
      return result;
    };
    const pool = client.semaphore('pool');
    expect(await dropping(trySetPermitsScript, pool.trySetPermits(5))).toBe(true);
    expect(await dropping(addPermitsScript, pool.addPermits(2))).toBe(7);
    expect(await admin.get('pool')).toBe('7');
    expect(await dropping(trySetCountScript, client.latch('gate').trySetCount(3))).toBe(true);
    expect(await admin.get('gate')).toBe('3');
    expect(proxy.resets).toBe(3);
    await admin.del('pool', 'gate');
  });

  it('a countDown that opened the latch, re-sent after the next round was set, counts nothing in that round', async () => {
    const { client, proxy } = await proxiedClient();
    const coordinator = createLockClient({ redis: server.client(), clientId: 'coordinator' });
    cleanups.push(() => coordinator.close());
    expect(await coordinator.latch('cycle').trySetCount(1)).toBe(true);
    const dropped = proxy.dropRepliesTo(calls(countDownScript));
    let settled = false;
    const left = client
      .latch('cycle')
      .countDown()
      .finally(() => (settled = true));
    expect(await dropped).toBe(1);
    expect(await eventually(async () => (await admin.exists('cycle')) === 0)).toBe(true);
    // Reconnects fail until the next round is set, so the copy surely comes after it.
    proxy.setMode({ type: 'reset' });
    expect(await coordinator.latch('cycle').trySetCount(3)).toBe(true);
    expect(settled).toBe(false);
    proxy.setMode({ type: 'pass' });
    expect(await left).toBe(0);
    expect(await admin.get('cycle')).toBe('3');
    await admin.del('cycle');
  });
});
