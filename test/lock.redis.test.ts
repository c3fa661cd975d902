import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient, LockLostError, type Lease } from '../src/index.js';
import { activeTimers, eventually, sleep } from './support/leaks.js';
import { redisServerForSuite } from './support/suiteRedis.js';

describe('lock$ against a real redis-server', () => {
  const server = redisServerForSuite();

  it('8 clients on separate connections doing GET, delay, SET of a shared counter under the lock lose no update', async () => {
    const clients = Array.from({ length: 8 }, () => createLockClient({ redis: server.client() }));
    const data = Array.from({ length: 8 }, () => server.client());
    await data[0]!.set('counter', '0');
    await Promise.all(
      clients.map(async (client, i) => {
        for (let n = 0; n < 15; n++) {
          await client.withLock('counter-lock', async () => {
            const read = Number(await data[i]!.get('counter'));
            await sleep(2);
            await data[i]!.set('counter', String(read + 1));
          });
        }
      }),
    );
    expect(await data[0]!.get('counter')).toBe('120');
    await Promise.all(clients.map((client) => client.close()));
    await data[0]!.del('counter');
  });

  it('keeps a lock alive past three times a short watchdog timeout', async () => {
    const client = createLockClient({ redis: server.client(), watchdogTimeoutMs: 300 });
    const admin = server.client();
    let lease: Lease | undefined;
    const subscription = client.lock$('long').subscribe((l) => (lease = l));
    expect(await eventually(() => lease !== undefined)).toBe(true);
    const ttls: number[] = [];
    for (let i = 0; i < 10; i++) {
      await sleep(100);
      ttls.push(await admin.pttl('long'));
    }
    expect(Math.min(...ttls)).toBeGreaterThan(0);
    expect(lease!.held).toBe(true);
    subscription.unsubscribe();
    await client.close();
    expect(await admin.exists('long')).toBe(0);
  });

  it('lets a waiter in once the TTL of a holder whose connection died runs out, and tells the holder', async () => {
    const holderRedis = server.client();
    const holder = createLockClient({ redis: holderRedis, watchdogTimeoutMs: 600 });
    const waiter = createLockClient({ redis: server.client() });
    const lost = new Promise<unknown>((resolve) => holder.lock$('dead').subscribe({ error: resolve }));
    expect(await eventually(async () => await waiter.isLocked('dead'))).toBe(true);
    const diedAt = performance.now();
    holderRedis.disconnect(false);
    const waitedMs = await waiter.withLock('dead', () => performance.now() - diedAt);
    // The key lived at most one watchdog timeout (600 ms) after the last renewal.
    expect(waitedMs).toBeLessThan(600 + 300);
    const error = await lost;
    expect(error).toBeInstanceOf(LockLostError);
    expect((error as LockLostError).reason).toBe('unconfirmed');
    await Promise.all([holder.close(), waiter.close()]);
  });

  it('leaves no keys, subscriptions or timers behind once the clients are closed', async () => {
    const admin = server.client();
    await sleep(50);
    const timersBefore = activeTimers();
    const clients = Array.from({ length: 4 }, () => createLockClient({ redis: server.client(), watchdogTimeoutMs: 300 }));
    const held = clients.map((client) => client.lock$('shared').subscribe());
    await sleep(400);
    const leases = await Promise.all(clients.map((client) => lastValueFrom(client.lock$(`own-${client.clientId}`).pipe(take(1), toArray()))));
    expect(leases.flat()).toHaveLength(4);
    const waiting = await firstValueFrom(clients[0]!.lock$('held-by-test', { waitMs: 0 }));
    expect(waiting.name).toBe('held-by-test');
    for (const subscription of held) subscription.unsubscribe();
    await Promise.all(clients.map((client) => client.close()));
    expect(await eventually(async () => (await admin.keys('*')).length === 0, 1_000)).toBe(true);
    expect(await admin.pubsub('CHANNELS')).toEqual([]);
    expect(await eventually(() => activeTimers() <= timersBefore, 1_000)).toBe(true);
  });
});
