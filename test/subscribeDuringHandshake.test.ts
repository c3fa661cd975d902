import type { Redis } from 'ioredis';
import { filter, firstValueFrom, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { eventually, sleep } from './support/leaks.js';
import { startProxy } from './support/proxy.js';
import { redisServerForSuite } from './support/suiteRedis.js';

describe('a waiter that starts listening while its pub/sub connection is still handshaking', () => {
  const server = redisServerForSuite();

  // ioredis 5 (since 5.8.2; ioredis #2037) writes a SUBSCRIBE at once while its handshake is under way
  // (status `connect`, before its INFO ready check). Redis then refuses the INFO on a connection already
  // subscribed, and ioredis drops the connection and opens another: a channel confirmed on the first one was
  // silently gone, so its waiter heard no hand-off and waited for its retry timer (the lock's whole TTL).
  it('still hears its hand-off once the connection is up', async () => {
    const admin = server.client();
    const proxy = await startProxy(server.port, { seed: 1 });
    const redis = server.client();
    const subscribers: Redis[] = [];
    const duplicate = redis.duplicate.bind(redis);
    // Only the pub/sub connection goes through the proxy.
    redis.duplicate = (override?: Parameters<Redis['duplicate']>[0]) => {
      const subscriber = duplicate({ ...override, port: proxy.port });
      subscribers.push(subscriber);
      return subscriber;
    };
    const holder = createLockClient({ redis: server.client() });
    const waiter = createLockClient({ redis });
    const [first, second] = [await holder.acquire('first'), await holder.acquire('second')];
    // Every reply to the pub/sub connection comes 300 ms late: its handshake takes that long twice.
    proxy.setMode({ type: 'delay', ms: 300, direction: 'replies' });
    const queued = (name: string) => firstValueFrom(waiter.events$.pipe(filter((event) => event.type === 'waiting' && event.name === name)));
    const leases: string[] = [];
    const waits: Subscription[] = [];
    const firstQueued = queued('first');
    waits.push(waiter.lock$('first').subscribe(() => leases.push('first')));
    await eventually(() => Promise.resolve(subscribers[0]?.status === 'connect'), 2_000);
    const secondQueued = queued('second');
    waits.push(waiter.lock$('second').subscribe(() => leases.push('second')));
    await Promise.all([firstQueued, secondQueued]);
    proxy.setMode({ type: 'pass' });
    const listening = async (): Promise<boolean> => {
      const counts = (await admin.pubsub('NUMSUB', ...['first', 'second'].map((name) => `redisson_lock__channel:{${name}}:${waiter.clientId}`))) as (
        string | number
      )[];
      return subscribers.at(-1)?.status === 'ready' && counts[1] === 1 && counts[3] === 1;
    };
    expect(await eventually(listening, 5_000)).toBe(true);
    await first.release();
    await second.release();
    // Handed over directly: well before any retry timer (the lease is 30 s).
    expect(await eventually(() => Promise.resolve(leases.length === 2), 2_000)).toBe(true);
    expect(leases.sort()).toEqual(['first', 'second']);
    for (const wait of waits) wait.unsubscribe();
    await sleep(50);
    await waiter.close();
    await holder.close();
    await proxy.close();
    admin.disconnect();
  });
});
