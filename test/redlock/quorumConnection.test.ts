import type { Redis } from 'ioredis';
import { asyncScheduler, firstValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lockAcquireScript } from '../../src/primitives/lock/acquireScript.js';
import { lockKeys } from '../../src/primitives/lock/lockKeys.js';
import { LOCK_VOTES, type Vote } from '../../src/redlock/lockVotes.js';
import { QuorumConnection } from '../../src/redlock/QuorumConnection.js';
import {
  createRedlockClient,
  LockBackendError,
  LockKeyTypeError,
  LockLostError,
  LockTimeoutError,
  type Lease,
  type RedisLike,
  type RedlockClient,
} from '../../src/index.js';
import { StoreError } from '../../src/store/StoreError.js';
import { createMemoryStore } from '../../src/testing.js';
import { eventually } from '../support/leaks.js';
import { startRedis, type RedisServer } from '../support/redisServer.js';

describe('QuorumConnection', () => {
  it('fails a run whose replies its vote cannot read with an outcome-unknown StoreError, instead of never answering', async () => {
    const stores = [createMemoryStore(), createMemoryStore(), createMemoryStore()];
    const unreadable: Vote = {
      decide: () => {
        throw new TypeError('expected an array reply, got 1');
      },
    };
    const connection = new QuorumConnection(
      stores.map((store) => store.connect()),
      new Map([[lockAcquireScript.sha1, unreadable]]),
      asyncScheduler,
      { instanceTimeoutMs: 1_000, driftFactor: 0.01, driftMs: 2 },
      false,
    );
    const keys = lockKeys('orders').acquireKeys;
    const error = await firstValueFrom(connection.run(lockAcquireScript, keys, [30_000, 'client:#1', 'new', 0])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).outcomeUnknown).toBe(true);
    expect((error as Error).message).toBe('unexpected reply from lock.acquire: TypeError: expected an array reply, got 1');
    // The script did run on the instances: the engine's compensation (a release everywhere) is what cleans it up.
    expect(stores.every((store) => store.db.exists('orders') === 1)).toBe(true);
  });
  it('a key of another type on a minority of instances does not decide the vote: the majority still grants it', async () => {
    const stores = [createMemoryStore(), createMemoryStore(), createMemoryStore()];
    stores[0]!.db.set('orders', 'stale');
    const connection = new QuorumConnection(
      stores.map((store) => store.connect()),
      LOCK_VOTES,
      asyncScheduler,
      { instanceTimeoutMs: 1_000, driftFactor: 0.01, driftMs: 2 },
      false,
    );
    const keys = lockKeys('orders').acquireKeys;
    const reply = await firstValueFrom(connection.run(lockAcquireScript, keys, [30_000, 'client:#1', 'new', 0]));
    expect(reply).toBeDefined();
    expect(stores.slice(1).every((store) => store.db.exists('orders') === 1)).toBe(true);
    expect(stores[0]!.db.get('orders')).toBe('stale');
  });
});

describe('Redlock client over 3 real masters', () => {
  let servers: RedisServer[] = [];
  let admins: Redis[] = [];
  let clients: RedlockClient[] = [];
  const stopped = new Set<RedisServer>();
  const pause = (server: RedisServer): void => {
    server.signal('SIGSTOP');
    stopped.add(server);
  };
  const resume = (server: RedisServer): void => {
    server.signal('SIGCONT');
    stopped.delete(server);
  };
  const client = (options: Parameters<typeof createRedlockClient>[1] = {}): RedlockClient => {
    const created = createRedlockClient(
      servers.map((server) => server.client()),
      options,
    );
    clients.push(created);
    return created;
  };

  beforeAll(async () => {
    servers = await Promise.all(Array.from({ length: 3 }, () => startRedis()));
    admins = servers.map((server) => server.client());
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });
  afterEach(async () => {
    for (const server of [...stopped]) resume(server);
    await Promise.all(clients.map((created) => created.close()));
    clients = [];
    await Promise.all(admins.map((admin) => admin.flushall()));
  });

  it('refuses an instances array with holes with a TypeError, instead of counting the holes as masters', () => {
    const [a, b] = servers.map((server) => server.client({ lazyConnect: true }));
    // eslint-disable-next-line no-sparse-arrays
    expect(() => createRedlockClient([a!, , b!] as RedisLike[])).toThrow(
      /instances\[1\] must be an ioredis client .* or a node-redis client .*, got undefined/,
    );
    expect(() => createRedlockClient(new Array<never>(3))).toThrow(TypeError);
  });

  it('a lease whose renewal finds a majority gone errors, and frees the key on the minority that still had it', async () => {
    const holder = client({ watchdogTimeoutMs: 1_500 });
    let lost: unknown;
    const lease = await new Promise<unknown>((resolve) => {
      holder.lock$('ledger').subscribe({ next: resolve, error: (error: unknown) => (lost = error) });
    });
    expect(lease).toBeDefined();
    // Two of the three masters lose the key (a restart without persistence, say): the next renewal finds no majority.
    await admins[0]!.del('ledger');
    await admins[1]!.del('ledger');
    expect(await eventually(() => lost !== undefined, 3_000)).toBe(true);
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ reason: 'not-held' });
    // That renewal extended the third master's copy for a whole lease; the lost lease must not leave it there.
    expect(await eventually(async () => (await admins[2]!.exists('ledger')) === 0, 1_000)).toBe(true);
  });

  it('a try refused by the holder’s majority leaves no grant behind on a master that answered too late', async () => {
    // Another owner holds "report" on two of the three masters: a majority, so any try is refused.
    for (const admin of admins.slice(0, 2)) {
      await admin.hset('report', 'other-client:owner', '1');
      await admin.pexpire('report', 30_000);
    }
    const contender = client({ instanceTimeoutMs: 200 });
    await contender.withLock('warm', () => undefined);
    // The third master is paused: the try's command waits in its socket and runs (and grants) once it resumes.
    pause(servers[2]!);
    const error = await firstValueFrom(contender.lock$('report', { waitMs: 0 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockTimeoutError);
    resume(servers[2]!);
    await admins[2]!.ping();
    // The try gave up: nothing of the contender may stay on the third master (its TTL would be the watchdog's 30 s).
    expect(await eventually(async () => (await admins[2]!.exists('report')) === 0, 3_000)).toBe(true);
    expect(await admins[2]!.keys('*')).toEqual([]);
  });

  it('a holder’s majority refuses although a master that lost its key granted: the contender waits (LockTimeoutError), and the stray grant is released', async () => {
    const holder = client();
    const held = await holder.acquire('job');
    // One master loses the holder's key (a restart without persistence): it would grant the next attempt.
    await admins[2]!.del('job');
    const contender = client();
    const started = Date.now();
    const tried = await firstValueFrom(contender.lock$('job', { waitMs: 0 })).catch((caught: unknown) => caught);
    expect(tried).toBeInstanceOf(LockTimeoutError);
    const waited = await firstValueFrom(contender.lock$('job', { waitMs: 600 })).catch((caught: unknown) => caught);
    expect(waited).toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    // Nothing of the contender stays on the master that granted it.
    expect(await eventually(async () => (await admins[2]!.exists('job')) === 0, 2_000)).toBe(true);
    await held.release();
  });

  /** What a run of `lock$` ended with within `ms`: its error, or 'still waiting'. */
  const outcomeWithin = (lease$: ReturnType<RedlockClient['lock$']>, ms: number): Promise<unknown> =>
    Promise.race([
      firstValueFrom(lease$).then(
        () => 'granted',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), ms)),
    ]);

  it('a lock key holding a string on every master fails with LockKeyTypeError at once, as on one Redis, instead of being retried as unanswered', async () => {
    for (const admin of admins) await admin.set('config', 'v1');
    const redlock = client();
    const started = Date.now();
    // Without waitMs: retried forever as "did not answer in time" before the fix.
    const error = await outcomeWithin(redlock.lock$('config'), 3_000);
    expect(error).toBeInstanceOf(LockKeyTypeError);
    expect(error).toMatchObject({ key: 'config', actualType: 'string' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await outcomeWithin(redlock.lock$('config', { waitMs: 0 }), 3_000)).toBeInstanceOf(LockKeyTypeError);
    expect(await Promise.all(admins.map((admin) => admin.get('config')))).toEqual(['v1', 'v1', 'v1']);
  });

  it('clients the user quit fail an acquire with LockBackendError("closed"), instead of retrying it forever as unanswered', async () => {
    const instances = servers.map((server) => server.client());
    const redlock = createRedlockClient(instances);
    clients.push(redlock);
    await redlock.withLock('warm', () => undefined);
    await Promise.all(instances.map((instance) => instance.quit()));
    const error = await outcomeWithin(redlock.lock$('orders'), 3_000);
    expect(error).toBeInstanceOf(LockBackendError);
    expect(error).toMatchObject({ code: 'closed' });
    const tried = await outcomeWithin(redlock.lock$('orders', { waitMs: 0 }), 3_000);
    expect(tried).toBeInstanceOf(LockBackendError);
    expect(tried).toMatchObject({ code: 'closed' });
  });

  it('one master down: a lease renewed on both live masters stays held while another lease of the same renewal batch cannot be confirmed', async () => {
    const holder = client({ watchdogTimeoutMs: 1_500, instanceTimeoutMs: 100 });
    pause(servers[2]!);
    const lost = new Map<string, unknown>();
    const hold = (name: string): Promise<Lease> =>
      new Promise((resolve) => {
        holder.lock$(name).subscribe({ next: resolve, error: (error: unknown) => lost.set(name, error) });
      });
    const a = await hold('alpha');
    const b = await hold('beta');
    // beta disappears from one of the two live masters: its renewals can be neither confirmed nor refused by a majority.
    await admins[1]!.del('beta');
    // Past the 1.5 s watchdog TTL: only renewals kept alpha.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(lost.get('alpha')).toBeUndefined();
    expect(a.held).toBe(true);
    expect(await admins[0]!.exists('alpha')).toBe(1);
    expect(await admins[1]!.exists('alpha')).toBe(1);
    expect(b.held).toBe(false);
    expect(lost.get('beta')).toBeInstanceOf(LockLostError);
    expect(lost.get('beta')).toMatchObject({ reason: 'unconfirmed' });
  });
});
