import { firstValueFrom, type Subscription } from 'rxjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLockClient, type LockClient } from '../../src/index.js';
import { eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock, spawnRxlock } from './cliProcess.js';
import { REDISSON, writeRedissonFairLock } from './everyPrimitive.js';

describe('rxlock unlock --force', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();
  let url: string;
  let holder: LockClient;
  let waiter: LockClient;
  let opened: LockClient[] = [];
  let holds: Subscription[] = [];

  beforeAll(() => {
    url = server.url;
  });
  afterEach(async () => {
    for (const hold of holds) hold.unsubscribe();
    holds = [];
    await Promise.all(opened.map((client) => client.close()));
    opened = [];
    await server.client().flushall();
  });

  const clients = () => {
    holder = createLockClient({ redis: server.client(), clientId: 'holder' });
    waiter = createLockClient({ redis: server.client(), clientId: 'waiter' });
    opened = [holder, waiter];
  };
  /** Holds until the test ends; losing it to the force-unlock is expected. */
  const hold = async (lease$: { subscribe(observer: { next(): void; error(): void }): Subscription }): Promise<void> => {
    await new Promise<void>((resolve) => holds.push(lease$.subscribe({ next: () => resolve(), error: () => undefined })));
  };
  /** Resolves true when `granted` comes first, false after `ms`. */
  const within = (granted: Promise<unknown>, ms: number) => Promise.race([granted.then(() => true), sleep(ms).then(() => false)]);

  it('deletes a lock held by another process and wakes its waiter long before the TTL would have', async () => {
    clients();
    await hold(holder.lock$('inventory', { owner: 'stuck' }));
    const granted = firstValueFrom(waiter.lock$('inventory', { owner: 'next' }));
    await eventually(async () => (await server.client().zcard('rxlock_waiters:{inventory}')) === 1);
    expect(await server.client().pttl('inventory')).toBeGreaterThan(20_000);

    const result = await rxlock(['unlock', '--force', 'inventory', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '', stdout: 'unlocked "inventory" (was held by holder:stuck ×1)\n' });
    expect(await within(granted, 10_000)).toBe(true);
  });

  it('frees a lock whose name the client API refuses (a lone brace, written by another library)', async () => {
    const redis = server.client();
    await redis.hset('bad}name', 'c1:o1', '1');
    await redis.pexpire('bad}name', 60_000);
    const result = await rxlock(['unlock', '--force', 'bad}name', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '', stdout: 'unlocked "bad}name" (was held by c1:o1 ×1)\n' });
    expect(await redis.exists('bad}name')).toBe(0);
  });

  it('asks first: anything but yes, or no answer at all, changes nothing', async () => {
    clients();
    await hold(holder.lock$('asked', { owner: 'stuck' }));
    const declined = await Promise.all(['n\n', '', 'maybe\n'].map((input) => rxlock(['unlock', '--force', 'asked', '--url', url], { input })));
    for (const result of declined) {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Delete lock "asked" held by holder:stuck ×1 and wake a waiter.');
      // What the operator must weigh: the holder goes on until its next renewal, while a waiter may take the lock.
      expect(result.stderr).toContain('Its holder is not told: it keeps working until its next renewal finds it gone: at most its renewal interval');
      expect(result.stderr).toContain('only writes checked against fencing tokens are safe');
      expect(result.stderr).toContain(`Force-unlock "asked" on redis://127.0.0.1:${server.port}? [y/N]`);
      expect(result.stderr).toMatch(/rxlock: not confirmed; nothing changed\n$/);
    }
    expect(await server.client().hget('asked', 'holder:stuck')).toBe('1');
    const accepted = await rxlock(['unlock', '--force', 'asked', '--url', url], { input: 'yes\n' });
    expect(accepted).toMatchObject({ code: 0, stdout: 'unlocked "asked" (was held by holder:stuck ×1)\n' });
    expect(await server.client().exists('asked')).toBe(0);
  });

  it('refuses when the holder changed while the operator was asked, and leaves the new holder alone', async () => {
    clients();
    const stuck = holder.lock$('turned', { owner: 'stuck' }).subscribe({ error: () => undefined });
    holds.push(stuck);
    await eventually(async () => (await server.client().hget('turned', 'holder:stuck')) === '1');
    const child = spawnRxlock(['unlock', '--force', 'turned', '--url', url]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(await eventually(() => Promise.resolve(stderr.includes('[y/N]')), 20_000)).toBe(true);
    // The old holder goes and a waiter takes the lock while the prompt waits.
    stuck.unsubscribe();
    await hold(waiter.lock$('turned', { owner: 'next' }));
    child.stdin.end('y\n');
    expect(await exited).toBe(1);
    expect(stderr).toContain(
      'rxlock: "turned" changed while you were asked (lock held by holder:stuck ×1 then, lock held by waiter:next ×1 now); nothing changed',
    );
    expect(await server.client().hget('turned', 'waiter:next')).toBe('1');
  });

  it('a write-locked read-write lock: deletes it and wakes every waiter', async () => {
    clients();
    await hold(holder.writeLock$('ledger', { owner: 'writer' }));
    const reader1 = firstValueFrom(waiter.readLock$('ledger', { owner: 'r1' }));
    const reader2 = firstValueFrom(waiter.readLock$('ledger', { owner: 'r2' }));
    await sleep(200);
    const result = await rxlock(['unlock', '--force', 'ledger', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: 'unlocked read-write lock "ledger" (was write-locked by holder:writer ×1)\n' });
    expect(await within(Promise.all([reader1, reader2]), 10_000)).toBe(true);
  });

  it('a read-locked one: deletes it with its readers’ timeout keys', async () => {
    clients();
    await hold(holder.readLock$('shelf', { owner: 'reader' }));
    expect(await server.client().exists('{shelf}:holder:reader:rwlock_timeout:1')).toBe(1);
    const result = await rxlock(['unlock', '--force', 'shelf', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: 'unlocked read-write lock "shelf" (was read-locked by holder:reader ×1)\n' });
    expect(await server.client().keys('*shelf*')).toEqual([]);
  });

  it('a semaphore with leased permits: takes every permit back and wakes a waiter', async () => {
    clients();
    const slots = holder.leasedSemaphore('slots');
    await slots.trySetPermits(1);
    await hold(slots.acquire$(1));
    const granted = firstValueFrom(waiter.leasedSemaphore('slots').acquire$(1));
    await sleep(200);
    const result = await rxlock(['unlock', '--force', 'slots', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: 'took back 1 permit of semaphore "slots"\n' });
    expect(await within(granted, 10_000)).toBe(true);
  });

  it('a Redisson fair lock: drops waiters whose time ran out and wakes the head of the queue on its own channel', async () => {
    const redis = server.client();
    await writeRedissonFairLock(redis, 'payments');
    // A dead waiter at the head, whose deadline passed.
    await redis.lpush('redisson_lock_queue:{payments}', `${REDISSON}:9`);
    await redis.zadd('redisson_lock_timeout:{payments}', Date.now() - 1_000, `${REDISSON}:9`);
    const listener = server.client();
    const messages: [string, string][] = [];
    listener.on('pmessage', (_pattern: string, channel: string, message: string) => messages.push([channel, message]));
    await listener.psubscribe('redisson_lock__channel:{payments}*');

    const result = await rxlock(['unlock', '--force', 'payments', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: `unlocked fair lock "payments" (was held by ${REDISSON}:1 ×1)\n` });
    expect(await eventually(() => messages.length > 0)).toBe(true);
    expect(messages).toEqual([[`redisson_lock__channel:{payments}:${REDISSON}:2`, '0']]);
    expect(await redis.exists('payments')).toBe(0);
    expect(await redis.lrange('redisson_lock_queue:{payments}', 0, -1)).toEqual([`${REDISSON}:2`, `${REDISSON}:3`]);
    expect(await redis.zscore('redisson_lock_timeout:{payments}', `${REDISSON}:9`)).toBeNull();
  });

  it('an rxlock fair lock: deletes it and the head of the line takes it', async () => {
    clients();
    // A waiter polls every third of fairLockWaiterTimeoutMs: 20 s here, so only the wake-up can be quicker.
    const patient = createLockClient({ redis: server.client(), clientId: 'patient', fairLockWaiterTimeoutMs: 60_000 });
    opened.push(patient);
    await hold(holder.fairLock$('tickets', { owner: 'stuck' }));
    const first = firstValueFrom(patient.fairLock$('tickets', { owner: 'first' }));
    await eventually(async () => (await server.client().llen('redisson_lock_queue:{tickets}')) === 1);
    const result = await rxlock(['unlock', '--force', 'tickets', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: 'unlocked fair lock "tickets" (was held by holder:stuck ×1)\n' });
    expect(await within(first, 10_000)).toBe(true);
  });

  it('a latch: opens it and releases those awaiting it, rxlock’s and Redisson’s', async () => {
    clients();
    await holder.latch('gate').trySetCount(2);
    const released = firstValueFrom(waiter.latch('gate').await$(), { defaultValue: undefined });
    const redissonAwaiting = server.client();
    const message = new Promise<string>((resolve) => redissonAwaiting.on('message', (_channel: string, text: string) => resolve(text)));
    await redissonAwaiting.subscribe('redisson_countdownlatch__channel__{gate}');
    await eventually(
      async () => Number(((await server.client().pubsub('NUMSUB', 'redisson_countdownlatch__channel__{gate}')) as [string, number | string])[1]) === 2,
    );
    const result = await rxlock(['unlock', '--force', 'gate', '--yes', '--url', url]);
    expect(result).toMatchObject({ code: 0, stdout: 'opened latch "gate"\n' });
    expect(await message).toBe('0');
    expect(await within(released, 10_000)).toBe(true);
    expect(await server.client().exists('gate')).toBe(0);
  });

  it('refuses what has no holder to unlock, asks what an ambiguous integer is, and names missing or foreign keys', async () => {
    clients();
    await holder.semaphore('pool').trySetPermits(2);
    await hold(holder.semaphore('pool').acquire$(1));
    const redis = server.client();
    await redis.set('counter', '4');
    await redis.rpush('queue', 'job');
    await redis.set('redisson_lock_token:{fenced}', '3');

    const [semaphore, ambiguous, missing, foreign, fenced, noForce] = await Promise.all([
      rxlock(['unlock', '--force', 'pool', '--yes', '--url', url]),
      rxlock(['unlock', '--force', 'counter', '--yes', '--url', url]),
      rxlock(['unlock', '--force', 'nope', '--yes', '--url', url]),
      rxlock(['unlock', '--force', 'queue', '--yes', '--url', url]),
      rxlock(['unlock', '--force', 'fenced', '--yes', '--url', url]),
      rxlock(['unlock', 'pool', '--url', url]),
    ]);
    expect(semaphore).toMatchObject({ code: 1, stdout: '' });
    expect(semaphore.stderr).toMatch(/^rxlock: "pool" is a semaphore: its permits have no owner, so there is nothing to force-unlock/);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/"counter" holds the integer 4, which may be a semaphore or a latch: say which with --kind/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^rxlock: no such lock: "nope"/);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^rxlock: wrong type at "queue": the key holds a list/);
    expect(fenced.code).toBe(1);
    expect(fenced.stderr).toBe('rxlock: no such lock: "fenced" is not held (only its fencing counter exists)\n');
    expect(noForce.code).toBe(2);
    expect(noForce.stderr).toMatch(/^rxlock: unlock needs --force/);
    expect({ pool: await redis.get('pool'), counter: await redis.get('counter'), queue: await redis.lrange('queue', 0, -1) }).toEqual({
      pool: '1',
      counter: '4',
      queue: ['job'],
    });

    const asLatch = await rxlock(['unlock', '--force', 'counter', '--kind', 'latch', '--yes', '--url', url]);
    expect(asLatch).toMatchObject({ code: 0, stdout: 'opened latch "counter"\n' });
  });
});
