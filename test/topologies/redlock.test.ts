import type { Redis } from 'ioredis';
import { firstValueFrom, type Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedlockClient,
  LockBackendError,
  LockError,
  LockLostError,
  LockTimeoutError,
  type Lease,
  type RedisLike,
  type RedlockClient,
  type RedlockClientOptions,
} from '../../src/index.js';
import { eventually, sleep } from '../support/leaks.js';
import { startRedis, type RedisServer } from '../support/redisServer.js';
import { contend, longestGap, sectionsBetween } from './contention.js';
import { report } from './report.js';
import { lockConnection, type ClosableRedis } from '../support/clientLibrary.js';

/** Counts the scripts sent through an ioredis client, to show that refused input sends nothing. */
function counted(redis: Redis): { redis: RedisLike; scripts: () => number } {
  let scripts = 0;
  const proxy = new Proxy(redis, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (property === 'evalsha' || property === 'eval' || property === 'pipeline') scripts++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { redis: proxy, scripts: () => scripts };
}

describe('Redlock over 5 independent masters', () => {
  let servers: RedisServer[] = [];
  let clients: RedlockClient[] = [];
  /** The connections the test gave its Redlock clients: theirs to use, the test's to close. */
  let connections: ClosableRedis[] = [];
  let admins: Redis[] = [];
  /** Servers a test killed; restarted (empty) after it. */
  const dead = new Set<RedisServer>();
  const kill = (victims: readonly RedisServer[]): void => {
    for (const server of victims) {
      server.signal('SIGKILL');
      dead.add(server);
    }
  };

  const client = (options: RedlockClientOptions = {}): RedlockClient => {
    // RXLOCK_CLIENT picks the library of the masters' connections.
    const given = servers.map((server) => lockConnection(server.port));
    connections.push(...given);
    const created = createRedlockClient(given, options);
    clients.push(created);
    return created;
  };
  /** Keys on every live instance, by instance. */
  const keysPerInstance = async (): Promise<string[][]> =>
    Promise.all(admins.map(async (admin, i) => (dead.has(servers[i]!) ? [] : (await admin.keys('*')).sort())));

  beforeAll(async () => {
    servers = await Promise.all(Array.from({ length: 5 }, () => startRedis()));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  afterEach(async () => {
    await Promise.all(clients.map((created) => created.close()));
    clients = [];
    // Commands queued for a killed instance would be re-sent to it once restarted, after ioredis's reconnect
    // back-off, and write keys after the test: its connections go (with their queues) before the restart.
    for (const connection of connections) connection.close();
    connections = [];
    for (const server of dead) await server.restart();
    dead.clear();
    admins = servers.map((server) => server.client({ maxRetriesPerRequest: 1 }));
    // Keys written just before the end expire with their lease (1.5 s in these tests).
    const clean = await eventually(async () => (await keysPerInstance()).every((keys) => keys.length === 0), 5_000);
    const left = await keysPerInstance();
    await Promise.all(admins.map((admin) => admin.flushall()));
    expect(clean ? left : left).toEqual([[], [], [], [], []]);
  });

  it('grants on a majority, holds the lock on every instance and excludes 6 contending clients', async () => {
    admins = servers.map((server) => server.client());
    const holder = client();
    const handle = await holder.acquire('job');
    expect(holder.quorum).toBe(3);
    // Redisson's layout: the hash field <clientId>:<owner> with a hold count. The grant is decided on a majority,
    // so at least 3 instances hold it now; the other acquires are still in flight and land within moments.
    const field = `${holder.clientId}:${handle.owner}`;
    const counts = async () => Promise.all(admins.map((admin) => admin.hget('job', field)));
    expect((await counts()).filter((count) => count === '1').length).toBeGreaterThanOrEqual(3);
    await eventually(async () => (await counts()).every((count) => count === '1'), 2_000);
    expect(await counts()).toEqual(['1', '1', '1', '1', '1']);
    await handle.release();
    const run = contend({ clients: Array.from({ length: 6 }, () => client()), names: ['a', 'b'], workMs: 2 });
    await sleep(1_500);
    await run.stop();
    expect(run.stats.overlaps).toBe(0);
    expect(run.stats.sections.length).toBeGreaterThan(50);
    report('redlock', 'all 5 up', { sectionsIn1500ms: run.stats.sections.length, overlaps: run.stats.overlaps, errors: Object.fromEntries(run.stats.errors) });
  });

  it('wakes a waiter by the unlock message (any instance), long before the holder’s TTL', async () => {
    admins = servers.map((server) => server.client());
    const holder = client();
    const waiter = client();
    const handle = await holder.acquire('wake');
    const woken = waiter.withLock('wake', () => performance.now());
    await sleep(100);
    const releasedAt = performance.now();
    await handle.release();
    const wakeMs = (await woken) - releasedAt;
    expect(wakeMs).toBeLessThan(1_000);
    report('redlock', 'wake-up', { wakeMs: Math.round(wakeMs) });
  });

  it('a refusal by a majority is a refusal: the contender times out, and the grants of the minority are released at once', async () => {
    admins = servers.map((server) => server.client());
    // Another owner holds "split" on three instances: this client can only get the other two.
    for (const admin of admins.slice(0, 3)) {
      await admin.hset('split', 'other-client:owner', '1');
      await admin.pexpire('split', 30_000);
    }
    const contender = client();
    const error = await firstValueFrom(contender.lock$('split', { waitMs: 0 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockTimeoutError);
    // Nothing of the contender is left on the two instances that granted it.
    expect(await eventually(async () => (await Promise.all(admins.slice(3).map((admin) => admin.exists('split')))).every((exists) => exists === 0))).toBe(true);
    await Promise.all(admins.map((admin) => admin.del('split')));
  });

  it('releases partial holds at once when neither side wins a majority (a split vote)', async () => {
    admins = servers.map((server) => server.client());
    const contender = client({ instanceTimeoutMs: 200 });
    await contender.withLock('warm', () => undefined);
    // Another owner holds "split" on two instances, a third does not answer: two grants, two refusals.
    for (const admin of admins.slice(0, 2)) {
      await admin.hset('split', 'other-client:owner', '1');
      await admin.pexpire('split', 30_000);
    }
    servers[2]!.signal('SIGSTOP');
    let error: unknown;
    try {
      error = await firstValueFrom(contender.lock$('split', { waitMs: 0 })).catch((caught: unknown) => caught);
    } finally {
      servers[2]!.signal('SIGCONT');
    }
    // A split vote is not a clean refusal: it may have left grants behind, which the engine releases everywhere.
    expect(error).toBeInstanceOf(LockBackendError);
    expect((error as LockBackendError).code).toBe('unavailable');
    expect((error as Error).message).toMatch(/split vote: 2 of 5 instances granted it/);
    await admins[2]!.ping();
    expect(await eventually(async () => (await Promise.all(admins.slice(2).map((admin) => admin.exists('split')))).every((exists) => exists === 0))).toBe(true);
    await Promise.all(admins.map((admin) => admin.del('split')));
  });

  it('gives up a majority that took longer than the validity (TTL − elapsed − drift) and releases it', async () => {
    admins = servers.map((server) => server.client());
    const contender = client({ instanceTimeoutMs: 1_000 });
    await contender.withLock('warm', () => undefined);
    // Three instances answer only after 150 ms: the majority comes too late for a 50 ms lease.
    for (const server of servers.slice(0, 3)) server.signal('SIGSTOP');
    const attempt = firstValueFrom(contender.lock$('late', { waitMs: 0, leaseMs: 50 })).catch((caught: unknown) => caught);
    await sleep(150);
    for (const server of servers.slice(0, 3)) server.signal('SIGCONT');
    const error = await attempt;
    expect(error).toBeInstanceOf(LockBackendError);
    expect((error as Error).message).toContain('leaving no validity of its 50 ms TTL');
    expect(await eventually(async () => (await keysPerInstance()).every((keys) => keys.length === 0))).toBe(true);
  });

  it('keeps working with 2 of 5 masters killed: holders keep their leases, waiters get the lock, no overlap', async () => {
    admins = servers.map((server) => server.client());
    const settings: RedlockClientOptions = { watchdogTimeoutMs: 1_500, instanceTimeoutMs: 200 };
    // The contenders first: creating their 30 connections takes the event loop long enough, on a busy machine with
    // node-redis, to cost the holder its 1.5 s lease before anything is killed.
    const contenders = Array.from({ length: 6 }, () => client(settings));
    const holder = client(settings);
    let holderError: unknown;
    let lease: Lease | undefined;
    const holding: Subscription = holder.lock$('long').subscribe({ next: (granted) => (lease = granted), error: (error: unknown) => (holderError = error) });
    expect(await eventually(() => lease !== undefined)).toBe(true);
    const run = contend({ clients: contenders, names: ['x', 'y'], workMs: 2 });
    await sleep(1_000);
    const killedAt = performance.now();
    kill(servers.slice(0, 2));
    // Two renewal rounds of the long holder on the three survivors.
    await sleep(2_000);
    await run.stop();
    const after = sectionsBetween(run.stats, ['x', 'y'], killedAt);
    expect(holderError).toBeUndefined();
    expect(lease!.held).toBe(true);
    holding.unsubscribe();
    expect(run.stats.overlaps).toBe(0);
    expect(after.length).toBeGreaterThan(20);
    report('redlock', '2 of 5 killed', {
      sectionsBefore: run.stats.sections.length - after.length,
      sectionsAfter: after.length,
      longestPauseAfterKillMs: Math.round(longestGap(run.stats, ['x', 'y'], killedAt, killedAt + 2_000)),
      longHolder: holderError instanceof Error ? holderError.message : 'still held',
      overlaps: run.stats.overlaps,
      errors: Object.fromEntries(run.stats.errors),
    });
  });

  it('with 3 of 5 masters killed: holders error with LockLostError, acquires fail, nobody overlaps', async () => {
    admins = servers.map((server) => server.client());
    const settings: RedlockClientOptions = { watchdogTimeoutMs: 1_500, instanceTimeoutMs: 200 };
    // Every client before the holder's lease, as above.
    const contenders = Array.from({ length: 4 }, () => client(settings));
    const late = client(settings);
    const holder = client(settings);
    let holderError: unknown;
    let lostAt = 0;
    let lease: Lease | undefined;
    holder.lock$('long').subscribe({
      next: (granted) => (lease = granted),
      error: (error: unknown) => {
        holderError = error;
        lostAt = performance.now();
      },
    });
    expect(await eventually(() => lease !== undefined)).toBe(true);
    const run = contend({ clients: contenders, names: ['x', 'y'], workMs: 2, lockOptions: { waitMs: 1_000 } });
    await sleep(500);
    const killedAt = performance.now();
    kill(servers.slice(0, 3));
    const lateAcquire = firstValueFrom(late.lock$('fresh', { waitMs: 1_000 })).catch((caught: unknown) => caught);
    expect(await eventually(() => holderError !== undefined, 5_000)).toBe(true);
    const failed = await lateAcquire;
    await sleep(1_000);
    await run.stop();
    expect(holderError).toBeInstanceOf(LockLostError);
    expect((holderError as LockLostError).reason).toBe('unconfirmed');
    // The holder learns within one TTL of losing the majority (its deadline counts from its last confirmed renewal).
    expect(lostAt - killedAt).toBeLessThan(1_500 + 200);
    expect(failed).toBeInstanceOf(LockError);
    expect(failed instanceof LockBackendError || failed instanceof LockTimeoutError).toBe(true);
    expect(sectionsBetween(run.stats, ['x', 'y'], killedAt + 200).length).toBe(0);
    expect(run.stats.overlaps).toBe(0);
    report('redlock', '3 of 5 killed', {
      holderLearnedAfterKillMs: Math.round(lostAt - killedAt),
      holderError: `LockLostError(${(holderError as LockLostError).reason})`,
      newAcquire: failed instanceof LockBackendError ? `LockBackendError(${failed.code})` : (failed as Error).name,
      sectionsAfterKill: sectionsBetween(run.stats, ['x', 'y'], killedAt + 200).length,
      overlaps: run.stats.overlaps,
      errors: Object.fromEntries(run.stats.errors),
    });
  });

  it('refuses bad arguments and fencing with a TypeError, sending nothing', async () => {
    admins = servers.map((server) => server.client());
    const watched = servers.map((server) => counted(server.client()));
    expect(() => createRedlockClient([])).toThrow(/non-empty array/);
    expect(() => createRedlockClient([{} as RedisLike])).toThrow(/instances\[0\] must be an ioredis client \(Redis or Cluster.*or a node-redis client/);
    expect(() => createRedlockClient([watched[0]!.redis, watched[0]!.redis])).toThrow(/instances\[1\] is the same client as instances\[0\]/);
    expect(() => createRedlockClient([watched[0]!.redis], { instanceTimeoutMs: 5_000 })).toThrow(RangeError);
    expect(() => createRedlockClient([watched[0]!.redis], { handoffMs: 10 } as RedlockClientOptions)).toThrow(/unknown option "handoffMs"/);
    const redlock = createRedlockClient(watched.map((entry) => entry.redis));
    clients.push(redlock);
    const error = await firstValueFrom(redlock.lock$('fenced', { fencing: true })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('lock$("fenced")');
    await expect(redlock.withLock('fenced', () => 1, { fencing: true })).rejects.toBeInstanceOf(TypeError);
    await expect(firstValueFrom(redlock.lock$(''))).rejects.toBeInstanceOf(TypeError);
    expect(watched.reduce((sum, entry) => sum + entry.scripts(), 0)).toBe(0);
  });
});
