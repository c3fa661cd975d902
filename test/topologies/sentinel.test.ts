import type { RedisOptions } from 'ioredis';
import type { RedisSentinelType } from 'redis';
import { firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLockClient,
  LockBackendError,
  LockLostError,
  LockTimeoutError,
  monotonicScheduler,
  type Lease,
  type LockClient,
  type LockClientOptions,
  type LockOptions,
} from '../../src/index.js';
import { eventually, sleep } from '../support/leaks.js';
import { startSentinelGroup, type SentinelGroup } from '../support/sentinel.js';
import { report } from './report.js';
import { CLIENT_LIBRARY } from '../support/clientLibrary.js';

type Settings = Omit<LockClientOptions, 'redis' | 'store'>;

/** The clients' clock (their default scheduler's), so that times compare with `lease.deadline`. */
const now = (): number => monotonicScheduler.now();

/** A hold kept open, with the times it was granted and lost. */
interface Watched {
  acquiredAt: number | undefined;
  lostAt: number | undefined;
  error: unknown;
  lease: Lease | undefined;
  stop(): void;
}

/** An error as a failed expectation names it. */
const errorName = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : 'no error');

function watch(client: LockClient, name: string, options?: LockOptions): Watched {
  const watched: Watched = { acquiredAt: undefined, lostAt: undefined, error: undefined, lease: undefined, stop: () => undefined };
  const subscription = client.lock$(name, options).subscribe({
    next: (lease) => {
      watched.lease = lease;
      watched.acquiredAt = now();
    },
    error: (error: unknown) => {
      watched.error = error;
      watched.lostAt = now();
    },
  });
  watched.stop = () => subscription.unsubscribe();
  return watched;
}

// Renewals every 2 s, so a failover (about 3 s here) completes while the first holder still trusts its lease:
// the situation in which asynchronous replication can make Redis forget a lock.
const SETTINGS: Settings = { watchdogTimeoutMs: 6_000, commandTimeoutMs: 2_000 };

describe('under Sentinel: a master, two replicas, three sentinels', () => {
  let group: SentinelGroup;
  let clients: LockClient[] = [];
  /** The node-redis sentinel under each lock client, so that a failure message names the master it uses. */
  const sentinelOf = new WeakMap<LockClient, RedisSentinelType>();
  const seenMaster = (locks: LockClient): string => {
    const sentinel = sentinelOf.get(locks);
    if (sentinel === undefined) return 'on ioredis';
    return `its master: ${JSON.stringify(sentinel.getMasterNode() ?? 'none connected')}, ${sentinel.isReady ? 'ready' : 'not ready'}`;
  };
  const client = (settings: Settings = {}, redisOptions: RedisOptions = {}): LockClient => {
    // RXLOCK_CLIENT picks the library: an ioredis client with sentinels, or a node-redis sentinel (createSentinel).
    const sentinel = CLIENT_LIBRARY === 'node-redis' ? group.nodeRedis() : undefined;
    const created = createLockClient({ redis: sentinel ?? group.client(redisOptions), ...SETTINGS, ...settings });
    if (sentinel !== undefined) sentinelOf.set(created, sentinel);
    clients.push(created);
    return created;
  };

  beforeEach(async () => {
    // Two replicas, so that the promoted one still has a replica to acknowledge writes after the failover.
    group = await startSentinelGroup({ replicas: 2, sentinels: 3, downAfterMs: 1_000, failoverTimeoutMs: 5_000 });
  });
  afterEach(async () => {
    await Promise.all(clients.map((created) => created.close()));
    clients = [];
    await group.stop();
  });

  it('locks, wakes a waiter and fences through ioredis’ Sentinel support', async () => {
    const holder = client({ replicas: 1 });
    const waiter = client({ replicas: 1 });
    const handle = await holder.acquire('plain', { fencing: true });
    const woken = waiter.withLock('plain', (lease) => ({ token: lease.token, at: now() }), { fencing: true });
    await sleep(50);
    const releasedAt = now();
    await handle.release();
    const { token, at } = await woken;
    expect(handle.token).toBe(1);
    expect(token).toBe(2);
    expect(at - releasedAt).toBeLessThan(1_000);
    // Every write was acknowledged by the replica: it has the fencing counter too.
    const replica = group.direct(group.servers[1]!);
    expect(await eventually(async () => (await replica.get('redisson_lock_token:{plain}')) === '2')).toBe(true);
  });

  it('without `replicas`: a failover to a replica that missed the acquire forgets the lock; the holder learns at its next renewal', async () => {
    // Renewals every 4 s: node-redis's sentinel client follows the new master up to 3 s after the sentinels agree,
    // and the second client must get the lock while the first still trusts its lease (at least 8 s after the kill).
    const settings: Settings = { watchdogTimeoutMs: 12_000 };
    const first = client(settings);
    const second = client(settings);
    const oldMaster = await group.masterPort();
    // Both replicas stop receiving the replication stream without noticing: whichever is promoted lacks what follows.
    group.replicationLink(0).setMode({ type: 'blackhole' });
    group.replicationLink(1).setMode({ type: 'blackhole' });
    const held = watch(first, 'job');
    expect(await eventually(() => held.acquiredAt !== undefined)).toBe(true);
    const killedAt = now();
    await group.kill(group.servers[0]!);
    await group.waitForNewMaster(oldMaster);
    const promotedAt = now();
    // The second client may still be following the failover (node-redis's sentinel client switches a moment after
    // the sentinels agree): it waits for the lock, as a caller who means to get it would, rather than failing
    // fast on the silence of the old master.
    const taken = watch(second, 'job', { waitMs: 10_000 });
    const settled = await eventually(() => taken.acquiredAt !== undefined && held.lostAt !== undefined, 15_000);
    expect(settled, `second: ${errorName(taken.error)}, ${seenMaster(second)}; first: ${errorName(held.error)}`).toBe(true);
    // The first holder's lease runs until its deadline unless a renewal says otherwise (monotonic scheduler: now()).
    const trustedUntil = held.lease!.deadline;
    report(`sentinel, ${CLIENT_LIBRARY}`, 'failover to a lagging replica, replicas: 0', {
      failoverMs: Math.round(promotedAt - killedAt),
      secondAcquiredAfterKillMs: Math.round(taken.acquiredAt! - killedAt),
      firstLearnedAfterKillMs: Math.round(held.lostAt! - killedAt),
      firstError: held.error instanceof LockLostError ? `LockLostError(${held.error.reason})` : 'unexpected error',
      bothHeldMs: Math.round(Math.max(0, held.lostAt! - taken.acquiredAt!)),
      firstLeaseStillValidForMs: Math.round(trustedUntil - taken.acquiredAt!),
    });
    // The promoted replica never saw the lock: the second client got it while the first's lease was still valid,
    // and the first learned it only from its next renewal.
    expect(taken.acquiredAt!).toBeLessThan(trustedUntil);
    expect(held.error).toBeInstanceOf(LockLostError);
    expect((held.error as LockLostError).reason).toBe('not-held');
    held.stop();
    taken.stop();
  });

  it('with `replicas: 1`: the acquire that no replica acknowledged is released and fails, so the failover forgets nothing', async () => {
    const first = client({ replicas: 1, replicaTimeoutMs: 500 });
    const second = client({ replicas: 1, replicaTimeoutMs: 500 });
    const oldMaster = await group.masterPort();
    const master = group.direct(group.servers[0]!);
    // Both replicas stop receiving the replication stream without noticing: whichever is promoted lacks what follows.
    group.replicationLink(0).setMode({ type: 'blackhole' });
    group.replicationLink(1).setMode({ type: 'blackhole' });
    const startedAt = now();
    const error = await firstValueFrom(first.lock$('job')).catch((caught: unknown) => caught);
    const failedAfterMs = now() - startedAt;
    expect(error).toBeInstanceOf(LockBackendError);
    expect((error as LockBackendError).code).toBe('no-replicas');
    // The compensating release ran on the master: nothing of the failed acquire is left to be half-forgotten.
    expect(await eventually(async () => (await master.exists('job')) === 0)).toBe(true);
    const killedAt = now();
    await group.kill(group.servers[0]!);
    await group.waitForNewMaster(oldMaster);
    const promotedAt = now();
    // The sentinels make the other replica replicate from the promoted one; until it is online every lock
    // operation fails with no-replicas, by design.
    await group.waitForReplicas(1);
    const replicaBackAt = now();
    // As above: the second client waits while it follows the failover. node-redis's sentinel client retries a failed
    // rediscovery up to 16 times, a second apart, before it starts over: the wait allows one such run.
    const taken = watch(second, 'job', { waitMs: 30_000 });
    const acquired = await eventually(() => taken.acquiredAt !== undefined, 35_000);
    const masterNow = await group.masterPort().catch(() => 'unknown');
    expect(
      acquired,
      `second: ${errorName(taken.error)}; ${seenMaster(second)}; the old master's port ${oldMaster}, the sentinels' master's now ${masterNow}`,
    ).toBe(true);
    report(`sentinel, ${CLIENT_LIBRARY}`, 'failover to a lagging replica, replicas: 1', {
      firstAcquireFailedAfterMs: Math.round(failedAfterMs),
      firstError: `LockBackendError(${(error as LockBackendError).code})`,
      failoverMs: Math.round(promotedAt - killedAt),
      replicaBackAfterKillMs: Math.round(replicaBackAt - killedAt),
      secondAcquiredAfterKillMs: Math.round(taken.acquiredAt! - killedAt),
      bothHeldMs: 0,
    });
    taken.stop();
  });

  it('with `replicas: 1` and an in-sync replica: the lock survives the failover and nobody else gets it', async () => {
    const first = client({ replicas: 1, replicaTimeoutMs: 500 });
    const second = client({ replicas: 1, replicaTimeoutMs: 500 });
    const oldMaster = await group.masterPort();
    const held = watch(first, 'job');
    expect(await eventually(() => held.acquiredAt !== undefined)).toBe(true);
    const killedAt = now();
    await group.kill(group.servers[0]!);
    await group.waitForNewMaster(oldMaster);
    const promotedAt = now();
    await group.waitForReplicas(1);
    const replicaBackAt = now();
    const attempt = await firstValueFrom(second.lock$('job', { waitMs: 3_000 })).catch((caught: unknown) => caught);
    const survived = await group.client().exists('job');
    report(`sentinel, ${CLIENT_LIBRARY}`, 'failover to an in-sync replica, replicas: 1', {
      failoverMs: Math.round(promotedAt - killedAt),
      replicaBackAfterKillMs: Math.round(replicaBackAt - killedAt),
      secondClient: attempt instanceof Error ? attempt.message : 'acquired',
      lockOnNewMaster: survived === 1,
      firstHolder: held.error === undefined ? 'still held' : held.error instanceof LockLostError ? `LockLostError(${held.error.reason})` : 'unexpected error',
    });
    expect(attempt).toBeInstanceOf(LockTimeoutError);
    // Either the holder kept it (its renewals reached the new master) or it reported the loss; never both holding.
    if (held.error !== undefined) expect(held.error).toBeInstanceOf(LockLostError);
    held.stop();
  });
});
