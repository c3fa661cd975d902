import { lastValueFrom, type Subscription } from 'rxjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { groupLockForceUnlockScript } from '../../src/cli/unlock/groupLockForceUnlockScript.js';
import { createLockClient, monotonicScheduler, redisStore, type Lease, type LockClient } from '../../src/index.js';
import { createMemoryStore } from '../../src/testing.js';
import { eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';
import { REDISSON } from './everyPrimitive.js';

/** Redisson's field for the value `Mary_002` (StringCodec), computed with Redisson's HighwayHash on the JVM. */
const MARY = 'kIX2DFOX4IWct7G7K6tV9A';

describe('rxlock ls, watch and unlock --force on a group lock (groupLock$, Redisson’s RedissonFasterMultiLock)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();
  let url: string;
  let clients: LockClient[] = [];
  let holds: Subscription[] = [];

  beforeAll(() => {
    url = server.url;
  });
  afterEach(async () => {
    for (const hold of holds) hold.unsubscribe();
    holds = [];
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
    await server.client().flushall();
  });

  const client = (clientId: string): LockClient => {
    const created = createLockClient({ redis: server.client(), clientId });
    clients.push(created);
    return created;
  };

  /** rxlock holds two values of `class_100`, a Redisson thread holds a third (written in its layout), and a waiter waits for Mary_002. */
  const prepare = async (): Promise<{ waiter: Promise<Lease> }> => {
    const redis = server.client();
    const app = client('app-1');
    await new Promise<void>((resolve, reject) =>
      holds.push(app.groupLock$('class_100', ['Jack_001', 'Tom_003'], { owner: 'w1' }).subscribe({ next: () => resolve(), error: reject })),
    );
    const until = Number((await redis.time())[0]) * 1000 + 60_000;
    await redis.hset('class_100', MARY, `${REDISSON}:1`, `${MARY}:${REDISSON}:1:expire_time`, until, `${MARY}:${REDISSON}:1:lock_count`, 1);
    const waiter = new Promise<Lease>((resolve) =>
      holds.push(
        client('app-2')
          .groupLock$('class_100', ['Mary_002'])
          .subscribe({ next: resolve, error: () => undefined }),
      ),
    );
    expect(await eventually(async () => (await redis.pubsub('NUMSUB', 'redisson_lock__channel:{class_100}'))[1] === 1)).toBe(true);
    // In an object: an async function returning the promise itself would wait for it.
    return { waiter };
  };

  it('ls --json recognises the group hash: its owners, the values each holds, and the clients waiting', async () => {
    await prepare();
    const result = await rxlock(['ls', '--json', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [object] = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(object).toMatchObject({
      name: 'class_100',
      kind: 'groupLock',
      values: 3,
      waiters: { queued: [], queuedCount: 0, subscribedClients: 1 },
    });
    const holders = (object?.['holders'] as { id: string; holds: number; ttlMs: number }[]).sort((a, b) => a.id.localeCompare(b.id));
    expect(holders.map(({ id, holds }) => [id, holds])).toEqual([
      ['app-1:w1', 2],
      [`${REDISSON}:1`, 1],
    ]);
    expect(holders[0]?.ttlMs).toBeGreaterThan(20_000);
    expect(holders[1]?.ttlMs).toBeGreaterThan(50_000);
  });

  it('watch --once lists it as a group lock with its holders', async () => {
    await prepare();
    const result = await rxlock(['watch', '--once', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const row = result.stdout.split('\n').find((line) => line.trim().startsWith('class_100 ')) ?? '';
    expect(
      row
        .trim()
        .split(/\s{2,}/)
        .slice(0, 2),
    ).toEqual(['class_100', 'groupLock']);
    // The first holder is shown (in the hash's order), with the count of the others.
    expect(row).toMatch(/(app-1:w1|c0ffee00…:1) ×\d \+1/);
  });

  it('unlock --force frees every value, whoever holds it, and wakes the waiter long before any lease ends', async () => {
    const { waiter } = await prepare();
    const result = await rxlock(['unlock', '--force', 'class_100', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^unlocked group lock "class_100" \(3 values, held by .*\)\n$/);
    expect(result.stdout).toContain('app-1:w1 (2 values)');
    expect(result.stdout).toContain(`${REDISSON}:1 (1 value)`);
    const granted = await Promise.race([waiter.then(() => true), sleep(5_000).then(() => false)]);
    expect(granted).toBe(true);
  });

  it('the force-unlock script does the same on the memory store as in Redis', async () => {
    const redis = server.client();
    const memory = createMemoryStore();
    const keys = ['g', 'redisson_lock__channel:{g}', 'rxlock_holds:{g}'];
    await redis.hset('g', MARY, 'a:1', `${MARY}:a:1:expire_time`, 5, `${MARY}:a:1:lock_count`, 1);
    await redis.hset('rxlock_holds:{g}', 'a:2', 1);
    memory.db.hset('g', MARY, 'a:1');
    memory.db.hset('g', `${MARY}:a:1:expire_time`, '5');
    memory.db.hset('g', `${MARY}:a:1:lock_count`, '1');
    memory.db.hset('rxlock_holds:{g}', 'a:2', '1');
    const onRedis = redisStore(redis).connect(monotonicScheduler);
    const onMemory = memory.connect();
    expect(await lastValueFrom(onRedis.run(groupLockForceUnlockScript, keys, ['publish']))).toBe(1);
    expect(await lastValueFrom(onMemory.run(groupLockForceUnlockScript, keys, ['publish']))).toBe(1);
    expect([await redis.keys('*'), memory.db.keys()]).toEqual([[], []]);
    expect(await lastValueFrom(onRedis.run(groupLockForceUnlockScript, keys, ['publish']))).toBe(0);
    await redis.set('g', 'x');
    memory.db.set('g', 'x');
    const refused = await Promise.all(
      [
        lastValueFrom(onRedis.run(groupLockForceUnlockScript, keys, ['publish'])),
        lastValueFrom(onMemory.run(groupLockForceUnlockScript, keys, ['publish'])),
      ].map((p) => p.catch((e: unknown) => (e as Error).constructor.name)),
    );
    expect(refused).toEqual(['StoreError', 'StoreError']);
    expect([await redis.get('g'), memory.db.get('g')]).toEqual(['x', 'x']);
    await Promise.all([onRedis.close(), onMemory.close()]);
  });
});
