import { createClient, RESP_TYPES, type RedisClientType } from 'redis';
import { createClient as createClient6 } from 'redis6';
import { firstValueFrom, filter } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, redisStore, type LockClient, type RedisLike } from '../src/index.js';
import { eventually, isOpMemory, sleep } from './support/leaks.js';
import { startProxy, type TcpProxy } from './support/proxy.js';
import { freePort } from './support/redisServer.js';
import { redisServerForSuite } from './support/suiteRedis.js';

/** What a node-redis user may have set on their client, which rxlock must work with or refuse plainly. */
describe('node-redis clients as their users configure them', () => {
  const server = redisServerForSuite();
  const clients: LockClient[] = [];
  const own: RedisClientType[] = [];
  const lockClient = (redis: RedisLike, options: Omit<Parameters<typeof createLockClient>[0], 'redis' | 'store'> = {}): LockClient => {
    const client = createLockClient({ ...options, redis });
    clients.push(client);
    return client;
  };
  /** A node-redis client the test connects (or not) itself. */
  const nodeClient = (options: Parameters<typeof createClient>[0] = {}): RedisClientType => {
    const client = createClient({ ...options, socket: { host: '127.0.0.1', port: server.port, ...options.socket } }) as RedisClientType;
    client.on('error', () => undefined);
    own.push(client);
    return client;
  };
  /** Keys left, but a semaphore's op memory, which expires by itself (see `isOpMemory`). */
  const keys = async (): Promise<string[]> => {
    const admin = server.client();
    const all = await admin.keys('*');
    const ttls = await Promise.all(all.map((key) => admin.pttl(key)));
    return all.filter((key, i) => !isOpMemory(key, ttls[i] ?? -1));
  };
  const channels = async (): Promise<number> => ((await server.client().pubsub('CHANNELS')) as string[]).length;
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    for (const client of own.splice(0)) if (client.isOpen) client.destroy();
    expect(await eventually(async () => (await keys()).length === 0 && (await channels()) === 0, 1_000)).toBe(true);
    await server.client().flushall();
  });

  it('reads replies raw whatever type mapping the client has (RESP3, strings as Buffers, numbers as strings)', async () => {
    const mapped = nodeClient({
      RESP: 3,
      commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.NUMBER]: String } },
    });
    await mapped.connect();
    const viaProxy = nodeClient().withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    await (viaProxy as unknown as RedisClientType).connect();
    for (const redis of [mapped, viaProxy as unknown as RedisClientType]) {
      const client = lockClient(redis);
      const first = await client.withLock('mapped', (lease) => lease.token, { fencing: true });
      const second = await client.withLock('mapped', (lease) => lease.token, { fencing: true });
      expect(typeof first).toBe('number');
      expect(second).toBe((first ?? 0) + 1);
      const semaphore = client.semaphore('mapped-permits');
      expect(await semaphore.trySetPermits(2)).toBe(true);
      expect(await semaphore.availablePermits()).toBe(2);
      await server.client().del('mapped-permits', 'redisson_lock_token:{mapped}');
    }
  });

  it('waits for a client that is connecting, and fails at once, naming the problem, on one that is not connected or closed', async () => {
    const connecting = nodeClient();
    void connecting.connect();
    expect(await lockClient(connecting).withLock('state', () => 'ran')).toBe('ran');

    const never = lockClient(nodeClient());
    const notConnected = await never.withLock('state', () => 'ran').catch((error: unknown) => error);
    expect(notConnected).toBeInstanceOf(LockBackendError);
    expect((notConnected as LockBackendError).code).toBe('closed');
    expect((notConnected as Error).message).toMatch(/the node-redis client is not connected: connect it first/);

    const closing = nodeClient();
    await closing.connect();
    const closed = lockClient(closing);
    await closing.close();
    const afterClose = await closed.withLock('state', () => 'ran').catch((error: unknown) => error);
    expect((afterClose as LockBackendError).code).toBe('closed');
    expect((afterClose as Error).message).toMatch(/the node-redis client is closed \(close, destroy, quit or disconnect was called\)/);
  });

  it('says that a client gave up reconnecting, not that it was closed, when its reconnectStrategy returned false', async () => {
    const giving = nodeClient({ socket: { reconnectStrategy: false } });
    await giving.connect();
    const client = lockClient(giving);
    expect(await client.withLock('give-up', () => 'ran')).toBe('ran');
    const [id] = [await giving.clientId()];
    await server.client().client('KILL', 'ID', String(id));
    expect(await eventually(() => !giving.isOpen, 2_000)).toBe(true);
    const error = await client.withLock('give-up', () => 'ran').catch((caught: unknown) => caught);
    expect((error as LockBackendError).code).toBe('closed');
    expect((error as Error).message).toMatch(/the node-redis client gave up reconnecting \(its reconnectStrategy returned false or an Error\)/);
  });

  it('works with disableOfflineQueue: its waiters are woken by pub/sub once the subscriber connects', async () => {
    const [a, b] = [nodeClient({ disableOfflineQueue: true }), nodeClient({ disableOfflineQueue: true })];
    await Promise.all([a.connect(), b.connect()]);
    const [holder, waiter] = [lockClient(a), lockClient(b)];
    const held = await holder.acquire('offline-queue');
    const queued = firstValueFrom(waiter.events$.pipe(filter((event) => event.type === 'waiting')));
    // Woken by the holder's unlock message, well before the 30 s TTL fallback or a resent subscription.
    const waited = waiter.acquire('offline-queue', { waitMs: 1_500 });
    await queued;
    setTimeout(() => void held.release(), 100);
    const handle = await waited;
    expect(handle.held).toBe(true);
    await handle.release();
  });

  it('reports a full command queue (commandsQueueMaxLength) as a typed, transient failure, and writes nothing for it', async () => {
    const small = nodeClient({ commandsQueueMaxLength: 2 });
    await small.connect();
    const client = lockClient(small, { commandTimeoutMs: 1_000 });
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.withLock(`queue-${i}`, () => 'ran', { waitMs: 0 }).catch((error: unknown) => error)),
    );
    const failures = outcomes.filter((outcome) => outcome !== 'ran');
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(LockBackendError);
      expect((failure as LockBackendError).code).toBe('unavailable');
      expect((failure as Error).message).toMatch(/The queue is full/);
    }
  });

  it('keeps working when the subscriber cannot connect: waiters fall back on the holder’s TTL, and close() leaves no connection', async () => {
    const deadPort = await freePort();
    const cut = nodeClient();
    await cut.connect();
    // rxlock's pub/sub connection is a duplicate of the client: here one that can never connect.
    Object.assign(cut, { duplicate: () => createClient({ socket: { host: '127.0.0.1', port: deadPort, reconnectStrategy: false } }) });
    const holder = lockClient(server.client());
    const waiter = lockClient(cut);
    const held = await holder.acquire('no-subscriber', { leaseMs: 800 });
    const started = performance.now();
    const waited = waiter.acquire('no-subscriber', { waitMs: 3_000 });
    setTimeout(() => void held.release(), 100);
    const handle = await waited;
    expect(handle.held).toBe(true);
    // The unlock message could not reach it: the TTL fallback (the holder's 800 ms lease) woke it.
    expect(performance.now() - started).toBeGreaterThan(500);
    await handle.release();
    const sockets = process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;
    await waiter.close();
    expect(process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length).toBeLessThanOrEqual(sockets);
  });

  it('refuses what is not a Redis client with a TypeError naming what was given and what is accepted, and sends nothing', async () => {
    const accepted =
      /an ioredis client \(Redis or Cluster, ioredis 5 or 6, or iovalkey\) or a node-redis client \(createClient, createCluster or createSentinel of redis 5\)/;
    expect(() => createLockClient({ redis: {} as RedisLike })).toThrow(TypeError);
    expect(() => createLockClient({ redis: {} as RedisLike })).toThrow(accepted);
    // A forgotten await: `createClient().connect()` is a promise.
    const pending = nodeClient().connect();
    expect(() => createLockClient({ redis: pending as unknown as RedisLike })).toThrow(/got an object \(Promise\)/);
    await pending;
    expect(() => redisStore('redis://localhost' as unknown as RedisLike)).toThrow(/redisStore: the client must be .*got "redis:\/\/localhost"/);
    const legacy = nodeClient().legacy();
    expect(() => createLockClient({ redis: legacy as unknown as RedisLike })).toThrow(
      /a node-redis legacy client \(client.legacy\(\)\); pass the client itself/,
    );
    expect(await keys()).toEqual([]);
  });

  it('never closes the user’s client, and closes the subscriber it opened when the lock client closes', async () => {
    const redis = nodeClient();
    await redis.connect();
    const [holder, waiter] = [lockClient(redis), lockClient(server.client())];
    const held = await waiter.acquire('own');
    const waiting = holder.acquire('own').catch((error: unknown) => error);
    expect(await eventually(async () => (await channels()) >= 1, 1_000)).toBe(true);
    await held.release();
    await ((await waiting) as { release(): Promise<void> }).release();
    const admin = server.client();
    const connections = async (): Promise<number> => ((await admin.client('LIST')) as string).split('\n').filter(Boolean).length;
    const before = await connections();
    await holder.close();
    expect(redis.isOpen).toBe(true);
    expect(await redis.ping()).toBe('PONG');
    expect(await eventually(async () => (await connections()) === before - 1, 1_000)).toBe(true);
  });
});

/** node-redis fails a command it could not send within its `commandOptions.timeout` (5 s by default from node-redis 6). */
describe.each([
  ['node-redis 5', (options: Parameters<typeof createClient>[0]) => createClient(options) as unknown as RedisClientType],
  [
    'node-redis 6',
    (options: Parameters<typeof createClient>[0]) => createClient6(options as Parameters<typeof createClient6>[0]) as unknown as RedisClientType,
  ],
])('%s: a command it gave up on before sending it', (_, create) => {
  const server = redisServerForSuite();
  const clients: LockClient[] = [];
  const own: RedisClientType[] = [];
  let proxy: TcpProxy | undefined;
  /** A lock client on a node-redis client that reaches Redis through the proxy, with node-redis's command timeout. */
  const throughProxy = async (timeoutMs: number, commandTimeoutMs: number): Promise<{ redis: RedisClientType; locks: LockClient }> => {
    proxy = await startProxy(server.port);
    const redis = create({ socket: { host: '127.0.0.1', port: proxy.port, reconnectStrategy: () => 20 }, commandOptions: { timeout: timeoutMs } });
    redis.on('error', () => undefined);
    own.push(redis);
    await redis.connect();
    const locks = createLockClient({ redis, commandTimeoutMs });
    clients.push(locks);
    return { redis, locks };
  };
  /** Cuts the client off: every connection and reconnection is reset, so that commands wait in its offline queue. */
  const cutOff = async (redis: RedisClientType): Promise<void> => {
    proxy?.setMode({ type: 'reset' });
    expect(await eventually(() => !redis.isReady, 1_000)).toBe(true);
  };
  afterEach(async () => {
    proxy?.setMode({ type: 'pass' });
    await Promise.all(clients.splice(0).map((client) => client.close()));
    for (const client of own.splice(0)) if (client.isOpen) client.destroy();
    await proxy?.close();
    proxy = undefined;
    await server.client().flushall();
  });

  it('is not sent again: the compensation that follows rxlock’s own timeout stays the last word, and nothing holds the lock', async () => {
    const { redis, locks } = await throughProxy(1_000, 300);
    await cutOff(redis);
    const started = performance.now();
    const attempt = locks.acquire('unsent', { waitMs: 0 }).catch((error: unknown) => error);
    // rxlock gives up on the acquire at 300 ms and queues its compensation; node-redis gives up on the acquire at
    // 1000 ms and on the compensation at 1300 ms. The connection comes back in between: a copy of the acquire sent
    // at 1000 ms would run behind the compensation and leave the lock held by nobody until its lease ran out.
    expect(await attempt).toBeInstanceOf(LockBackendError);
    await sleep(1_150 - (performance.now() - started));
    proxy?.setMode({ type: 'pass' });
    expect(await eventually(() => redis.isReady, 1_000)).toBe(true);
    await sleep(300);
    expect(await server.client().keys('*')).toEqual([]);
  });

  it('fails the call as an outage in which nothing ran (LockBackendError unavailable), and writes nothing', async () => {
    const { redis, locks } = await throughProxy(300, 5_000);
    await cutOff(redis);
    const failure = await locks.acquire('unsent', { waitMs: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LockBackendError);
    expect((failure as LockBackendError).code).toBe('unavailable');
    expect((failure as Error).message).toMatch(/node-redis gave up on the command before sending it/);
    proxy?.setMode({ type: 'pass' });
    expect(await eventually(() => redis.isReady, 1_000)).toBe(true);
    await sleep(200);
    expect(await server.client().keys('*')).toEqual([]);
  });
});
