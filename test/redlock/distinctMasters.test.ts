import type { Redis } from 'ioredis';
import { asyncScheduler, firstValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientClosedError, createRedlockClient, type RedisLike, type RedlockClient } from '../../src/index.js';
import { DistinctMasters } from '../../src/redlock/distinctMasters.js';
import type { RedisDriver } from '../../src/store/redis/driver/RedisDriver.js';
import { countingCalls } from '../support/countingCalls.js';
import { startRedis, type RedisServer } from '../support/redisServer.js';

/** `redis` with its `INFO server` commands counted. */
function countingInfo(redis: Redis): { redis: RedisLike; infos: () => number } {
  const { redis: proxy, calls } = countingCalls(redis, (method, args) => method === 'info' && args[0] === 'server');
  return { redis: proxy, infos: calls };
}

/** A fake instance (its client's driver) whose INFO answers `reply` (or fails with it) after `delayMs`. */
function fakeInstance(reply: string | Error, delayMs: number, isCluster = false): RedisDriver & { asked: number } {
  const fake = {
    isCluster,
    asked: 0,
    isReplyError: (error: unknown) => (error as { name?: unknown } | null)?.name === 'ReplyError',
    info: () => {
      fake.asked++;
      return new Promise<string>((resolve, reject) => setTimeout(() => (typeof reply === 'string' ? resolve(reply) : reject(reply)), delayMs));
    },
  };
  return fake as unknown as RedisDriver & { asked: number };
}

describe('DistinctMasters', () => {
  const timeouts = { totalMs: 1_000, straggleMs: 100 };

  it('finds two instances of one server whichever of them answers first', async () => {
    const masters = new DistinctMasters(
      [fakeInstance('run_id:aaa\r\n', 1), fakeInstance('run_id:bbb\r\n', 20), fakeInstance('run_id:bbb\r\n', 5)],
      timeouts,
      asyncScheduler,
    );
    await expect(masters.check('lock$', 'x')).rejects.toThrow(
      /^rxlock: lock\$\("x"\): instances\[1\] and instances\[2\] of createRedlockClient .*\(run_id bbb\)/,
    );
    await expect(masters.check('acquire', 'y')).rejects.toThrow(/acquire\("y"\): instances\[1\] and instances\[2\]/);
  });

  it('asks no Cluster, and does not ask again an instance whose INFO is refused with an error reply', async () => {
    const refused = Object.assign(new Error('NOPERM this user has no permissions to run the info command'), { name: 'ReplyError' });
    const instances = [fakeInstance('run_id:aaa\r\n', 1), fakeInstance(refused, 1), fakeInstance('run_id:aaa\r\n', 1, true)];
    const masters = new DistinctMasters(instances, timeouts, asyncScheduler);
    await masters.check('lock$', 'x');
    expect(masters.check('lock$', 'x')).toBeUndefined();
    expect(instances.map((instance) => instance.asked)).toEqual([1, 1, 0]);
  });
});

describe('Redlock refuses two clients of one server as two masters', () => {
  let servers: RedisServer[] = [];
  let admins: Redis[] = [];
  let clients: RedlockClient[] = [];
  const redlock = (instances: RedisLike[], instanceTimeoutMs?: number): RedlockClient => {
    const created = createRedlockClient(instances, { instanceTimeoutMs });
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
    admins = servers.map((server) => server.client());
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  afterEach(async () => {
    await Promise.all(clients.map((created) => created.close()));
    clients = [];
    await Promise.all(admins.map((admin) => admin.flushall()));
  });

  it('[A, A′, B] with A and A′ on one server: every call fails with a TypeError naming both instances, and nothing is written', async () => {
    const [a, b] = servers;
    const duplicated = redlock([a!.client(), a!.client(), b!.client()]);
    const errors = [
      await duplicated.withLock('inv', () => 'ran').catch((error: unknown) => error),
      await firstValueFrom(duplicated.lock$('inv')).catch((error: unknown) => error),
      await firstValueFrom(duplicated.withLock$('inv', () => ['ran'])).catch((error: unknown) => error),
      await duplicated.acquire('inv').catch((error: unknown) => error),
    ];
    const calls = ['withLock("inv")', 'lock$("inv")', 'withLock$("inv")', 'acquire("inv")'];
    errors.forEach((error, index) => {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^rxlock: ${calls[index]!.replace(/[()$]/g, '\\$&')}: instances\\[0\\] and instances\\[1\\] of createRedlockClient are clients of the same Redis server \\(run_id \\w+\\); each master must count once`,
        ),
      );
    });
    expect(await Promise.all(admins.map((admin) => admin.dbsize()))).toEqual([0, 0, 0]);
  });

  it('a duplicate anywhere in the list is found: [A, B, B′]', async () => {
    const [a, b] = servers;
    const error = await redlock([a!.client(), b!.client(), b!.client()])
      .withLock('inv', () => 'ran')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('instances[1] and instances[2]');
  });

  it('distinct servers: one INFO per instance at first use, none after', async () => {
    const counted = servers.map((server) => countingInfo(server.client()));
    const distinct = redlock(counted.map(({ redis }) => redis));
    expect(await Promise.all([distinct.withLock('inv', () => 'first'), distinct.withLock('inv', () => 'concurrent')])).toEqual(['first', 'concurrent']);
    expect(counted.map(({ infos }) => infos())).toEqual([1, 1, 1]);
    for (let i = 0; i < 5; i++) expect(await distinct.withLock('inv', () => i)).toBe(i);
    await firstValueFrom(distinct.lock$('inv'));
    const handle = await distinct.acquire('inv');
    await handle.release();
    expect(counted.map(({ infos }) => infos())).toEqual([1, 1, 1]);
  });

  it('a master that does not answer at first use delays it by instanceTimeoutMs at most, and is identified once it answers', async () => {
    const counted = servers.map((server) => countingInfo(server.client()));
    const distinct = redlock(
      counted.map(({ redis }) => redis),
      200,
    );
    servers[2]!.signal('SIGSTOP');
    try {
      const started = Date.now();
      expect(await distinct.withLock('inv', () => 'with two of three')).toBe('with two of three');
      expect(Date.now() - started).toBeLessThan(1_500);
      // Asked once: the question waits in the paused server's socket, and is not repeated meanwhile.
      expect(await distinct.withLock('inv', () => 'again')).toBe('again');
      expect(counted.map(({ infos }) => infos())).toEqual([1, 1, 1]);
    } finally {
      servers[2]!.signal('SIGCONT');
    }
    await admins[2]!.ping();
    expect(await distinct.withLock('inv', () => 'all three')).toBe('all three');
    expect(counted.map(({ infos }) => infos())).toEqual([1, 1, 1]);
  });

  it('close() ends a first use still waiting for the masters at once: the waiting call fails with ClientClosedError', async () => {
    const distinct = redlock(servers.map((server) => server.client()));
    servers[1]!.signal('SIGSTOP');
    servers[2]!.signal('SIGSTOP');
    try {
      const started = Date.now();
      const waiting = distinct.acquire('inv').catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await distinct.close();
      expect(await waiting).toBeInstanceOf(ClientClosedError);
      // Not after commandTimeoutMs (5 s), which the first use would otherwise wait for two of three masters.
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      servers[1]!.signal('SIGCONT');
      servers[2]!.signal('SIGCONT');
    }
    await Promise.all([admins[1]!.ping(), admins[2]!.ping()]);
  });
});
