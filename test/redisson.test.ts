import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError, type LockClient } from '../src/index.js';
import { eventually, sleep } from './support/leaks.js';
import { RedissonPeer } from './support/redisson.js';
import { sharedRedis } from './support/sharedRedis.js';

describe('interoperability with Redisson’s RLock on the same Redis', () => {
  const scene = sharedRedis();
  const setup = (): { client: LockClient; peer: RedissonPeer } => ({
    client: scene.client({ clientId: 'node-svc' }),
    peer: new RedissonPeer(scene.server.client()),
  });

  it('waits while Redisson holds the lock and is woken by Redisson’s unlock message, long before the TTL', async () => {
    const { client, peer } = setup();
    expect(await peer.tryLock('orders', 1)).toBeNull();
    await expect(firstValueFrom(client.lock$('orders', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const started = performance.now();
    const acquired = client.withLock('orders', () => performance.now() - started);
    await sleep(200);
    expect(await peer.unlock('orders', 1)).toBe(1);
    const waitedMs = await acquired;
    expect(waitedMs).toBeGreaterThanOrEqual(190);
    expect(waitedMs).toBeLessThan(2_000); // the Redisson lease is 30 s: only the message can explain this
  });

  it('keeps Redisson out while rxlock holds, and Redisson’s subscriber hears rxlock’s unlock', async () => {
    const { client, peer } = setup();
    const handle = await client.acquire('orders', { owner: 'worker-1' });
    expect(await scene.server.client().hget('orders', 'node-svc:worker-1')).toBe('1');
    const ttl = await peer.tryLock('orders', 7);
    expect(ttl).toBeGreaterThan(0);
    expect(await peer.unlock('orders', 7)).toBeNull(); // not Redisson's to unlock
    expect(await peer.renew('orders', 7)).toBe(0); // nor to renew

    const listener = scene.server.client();
    await listener.subscribe(RedissonPeer.channel('orders'));
    const message = new Promise<string>((resolve) => listener.on('message', (_channel: string, text: string) => resolve(text)));
    await handle.release();
    expect(await message).toBe('0');
    expect(await peer.tryLock('orders', 7)).toBeNull();
    expect(await peer.unlock('orders', 7)).toBe(1);
    listener.disconnect();
  });

  it('reads Redisson’s reentrant hold count and refuses to force the lock with a release', async () => {
    const { client, peer } = setup();
    expect(await peer.tryLock('jobs', 3)).toBeNull();
    expect(await peer.tryLock('jobs', 3)).toBeNull();
    expect(await client.holdCount('jobs')).toBe(2);
    expect(await client.isLocked('jobs')).toBe(true);
    expect(await peer.unlock('jobs', 3)).toBe(0);
    expect(await peer.unlock('jobs', 3)).toBe(1);
    expect(await client.isLocked('jobs')).toBe(false);
  });
});

describe('interoperability with Redisson’s RCountDownLatch on the same Redis', () => {
  const scene = sharedRedis();

  it('a Redisson awaiter of a latch whose name has its own hash tag hears rxlock open it', async () => {
    const client = scene.client({ clientId: 'node-svc' });
    // Redisson's channel wraps the whole name in braces, tag or not; rxlock's own keeps the name's tag.
    const listener = scene.server.client();
    await listener.subscribe('redisson_countdownlatch__channel__{app:{t}:gate}');
    const messages: string[] = [];
    listener.on('message', (_channel: string, text: string) => messages.push(text));
    const gate = client.latch('app:{t}:gate');
    expect(await gate.trySetCount(2)).toBe(true);
    expect(await gate.countDown()).toBe(1);
    expect(await gate.countDown()).toBe(0);
    await listener.ping();
    expect(await eventually(() => messages.length === 2)).toBe(true);
    expect(messages).toEqual(['1', '0']);
    listener.disconnect();
  });
});
