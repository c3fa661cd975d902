import type { Redis } from 'ioredis';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { eventually } from './support/leaks.js';
import { startProxy } from './support/proxy.js';
import { redisServerForSuite } from './support/suiteRedis.js';

describe('closing a client while its pub/sub connection resubscribes after a reconnect', () => {
  const server = redisServerForSuite();
  const unhandled: unknown[] = [];
  const record = (reason: unknown): void => void unhandled.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  // ioredis (5.11 and 6.0) resubscribes a subscriber connection's channels on reconnect with commands nobody
  // awaits; when the connection is closed before their replies came, they are rejected unhandled, which ends
  // a Node process by default.
  it('rejects nothing unhandled', async () => {
    process.on('unhandledRejection', record);
    const admin = server.client();
    const proxy = await startProxy(server.port, { seed: 1 });
    const redis = server.client({ port: proxy.port });
    const subscribers: Redis[] = [];
    const duplicate = redis.duplicate.bind(redis);
    redis.duplicate = (...args: Parameters<Redis['duplicate']>) => {
      const subscriber = duplicate(...args);
      subscribers.push(subscriber);
      return subscriber;
    };
    const holder = createLockClient({ redis: server.client() });
    const waiter = createLockClient({ redis, commandTimeoutMs: 300 });
    const held = await holder.acquire('reconnect');
    const waiting = firstValueFrom(waiter.events$.pipe(filter((event) => event.type === 'waiting')));
    const attempt = waiter.acquire('reconnect').catch((error: unknown) => error);
    await waiting;
    const [subscriber] = subscribers;
    const subscribed = async (): Promise<boolean> => {
      const [, count] = (await admin.pubsub('NUMSUB', 'redisson_lock__channel:{reconnect}')) as [string, number];
      return subscriber?.status === 'ready' && count === 1;
    };
    expect(await eventually(subscribed, 2_000)).toBe(true);
    // The reconnect's ready comes after ioredis sent its own SUBSCRIBE; from then on no reply gets through.
    const resubscribing = new Promise<void>((resolve) =>
      subscriber!.once('ready', () => {
        proxy.setMode({ type: 'blackhole' });
        resolve();
      }),
    );
    await admin.client('KILL', 'TYPE', 'pubsub');
    await resubscribing;
    await waiter.close();
    expect(await attempt).toBeInstanceOf(Error);
    await held.release();
    await holder.close();
    await proxy.close();
    // An unhandled rejection is reported after the microtasks of the turn that rejected.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unhandled.map(String)).toEqual([]);
  });
});
