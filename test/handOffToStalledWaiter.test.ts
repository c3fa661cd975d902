import { Redis } from 'ioredis';
import { firstValueFrom, type Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, type Lease, type LockClient } from '../src/index.js';
import { eventually } from './support/leaks.js';
import { startProxy, type TcpProxy } from './support/proxy.js';
import { redisServerForSuite } from './support/suiteRedis.js';

/**
 * A release hands the lock straight to the longest waiter whose client listens. When that waiter's process is
 * frozen or cut off (its connections stay open, so the server still counts it as listening), the lock must come
 * back to the live waiters within the confirmation window (ten hand-off windows), not after a whole lease.
 */
async function listeners(admin: Redis, channel: string): Promise<number> {
  const [, count] = (await admin.pubsub('NUMSUB', channel)) as [string, number];
  return count;
}

describe('a direct hand-off to a waiter that cannot take it up (issue 41, item 3)', () => {
  const server = redisServerForSuite();
  const cleanups: (() => Promise<void> | void)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function client(clientId: string, redis: Redis = server.client()): LockClient {
    const lockClient = createLockClient({ redis, clientId });
    cleanups.push(() => lockClient.close());
    return lockClient;
  }

  async function cutOffClient(clientId: string): Promise<{ client: LockClient; proxy: TcpProxy }> {
    const proxy = await startProxy(server.port);
    const redis = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 10, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const lockClient = createLockClient({ redis, clientId, commandTimeoutMs: 500 });
    cleanups.push(async () => {
      proxy.setMode({ type: 'pass' });
      await lockClient.close();
      redis.disconnect();
      await proxy.close();
    });
    return { client: lockClient, proxy };
  }

  /** Subscribes until the first lease; the subscription, to end the hold. */
  async function firstHeld(lease$: import('rxjs').Observable<Lease>): Promise<Subscription> {
    let resolve!: () => void;
    const granted = new Promise<void>((r) => (resolve = r));
    const subscription = lease$.subscribe({ next: () => resolve(), error: () => undefined });
    cleanups.push(() => subscription.unsubscribe());
    await granted;
    return subscription;
  }

  function waitFor(lockClient: LockClient, name: string): { lease: Promise<Lease>; subscription: Subscription } {
    let resolve!: (lease: Lease) => void;
    const lease = new Promise<Lease>((r) => (resolve = r));
    const subscription = lockClient.lock$(name).subscribe({ next: resolve, error: () => undefined });
    cleanups.push(() => subscription.unsubscribe());
    return { lease, subscription };
  }

  it('serves the next live waiter within the confirmation window when the handed waiter is cut off', async () => {
    const holder = client('holder');
    const { client: stalled, proxy } = await cutOffClient('stalled');
    const live = client('live');
    const admin = server.client();
    cleanups.push(() => admin.disconnect());

    const held = await holder.acquire('parked');
    waitFor(stalled, 'parked');
    expect(await eventually(async () => (await admin.zcard('rxlock_waiters:{parked}')) === 1)).toBe(true);
    // Its client listens for hand-offs: the release will give it the lock directly.
    expect(await eventually(async () => (await listeners(admin, 'redisson_lock__channel:{parked}:stalled')) === 1)).toBe(true);
    const liveWaiter = waitFor(live, 'parked');
    expect(await eventually(async () => (await admin.zcard('rxlock_waiters:{parked}')) === 2)).toBe(true);

    // The stalled waiter's process stops answering; its connections stay open, so the server still sees it listen.
    proxy.setMode({ type: 'blackhole' });
    const releasedAt = performance.now();
    await held.release();
    const lease = await liveWaiter.lease;
    const waitedMs = performance.now() - releasedAt;
    expect(lease.held).toBe(true);
    // Ten hand-off windows of 100 ms, plus the time to notice: far less than the 30 s lease the hand-off used to park.
    expect(waitedMs).toBeLessThan(3_000);
    expect(waitedMs).toBeGreaterThan(500);
    console.info(`hand-off to a cut-off waiter: the next live waiter held the lock ${waitedMs.toFixed(0)} ms after the release`);
  });

  it('fairLock$: serves the next live waiter within the confirmation window when the handed head is cut off', async () => {
    const holder = client('fholder');
    const { client: stalled, proxy } = await cutOffClient('fstalled');
    const live = client('flive');
    const admin = server.client();
    cleanups.push(() => admin.disconnect());
    const held = await firstHeld(holder.fairLock$('fparked'));
    stalled.fairLock$('fparked').subscribe({ error: () => undefined });
    expect(await eventually(async () => (await admin.llen('redisson_lock_queue:{fparked}')) === 1)).toBe(true);
    expect(await eventually(async () => (await admin.pubsub('CHANNELS', 'redisson_lock__channel:{fparked}:fstalled:*')).length === 1)).toBe(true);
    let liveLease: Lease | undefined;
    let liveAt = 0;
    const subscription = live.fairLock$('fparked').subscribe({ next: (lease) => ((liveLease = lease), (liveAt = performance.now())), error: () => undefined });
    cleanups.push(() => subscription.unsubscribe());
    expect(await eventually(async () => (await admin.llen('redisson_lock_queue:{fparked}')) === 2)).toBe(true);
    proxy.setMode({ type: 'blackhole' });
    const releasedAt = performance.now();
    held.unsubscribe();
    expect(await eventually(() => liveLease !== undefined, 5_000)).toBe(true);
    const waitedMs = liveAt - releasedAt;
    expect(waitedMs).toBeLessThan(3_000);
    expect(waitedMs).toBeGreaterThan(500);
    console.info(`fair hand-off to a cut-off head: the next live waiter held the lock ${waitedMs.toFixed(0)} ms after the release`);
  });

  it('a live waiter handed the lock confirms it: its lease then lasts the whole watchdog timeout', async () => {
    const holder = client('holder2');
    const waiter = client('waiter2');
    const admin = server.client();
    cleanups.push(() => admin.disconnect());
    const held = await holder.acquire('confirmed');
    const waiting = waitFor(waiter, 'confirmed');
    expect(await eventually(async () => (await admin.zcard('rxlock_waiters:{confirmed}')) === 1)).toBe(true);
    expect(await eventually(async () => (await listeners(admin, 'redisson_lock__channel:{confirmed}:waiter2')) === 1)).toBe(true);
    await held.release();
    const lease = await waiting.lease;
    expect(await admin.pttl('confirmed')).toBeLessThanOrEqual(1_000);
    expect(await eventually(async () => (await admin.pttl('confirmed')) > 25_000)).toBe(true);
    // The confirmation's reply reaches the waiter's client a moment after Redis ran it.
    expect(await eventually(() => lease.deadline - lease.acquiredAt > 25_000)).toBe(true);
    expect(await firstValueFrom(holder.lock$('other', { waitMs: 0 }))).toBeDefined();
  });
});
