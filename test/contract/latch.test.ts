import { firstValueFrom, lastValueFrom, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockKeyTypeError, LockTimeoutError } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { sleep } from '../support/leaks.js';
import { sharedRedis } from '../support/sharedRedis.js';

describeStores('latch contract', (fixture) => {
  it('completes every await$ when the count reaches zero, and not before', async () => {
    const f = fixture();
    const clients = Array.from({ length: 4 }, () => f.client());
    const [setter] = clients;
    expect(await setter!.latch('ready').trySetCount(3)).toBe(true);
    expect(await setter!.latch('ready').trySetCount(5)).toBe(false);
    const doneAt: number[] = [];
    const subscriptions: Subscription[] = [];
    const awaited = clients.flatMap((client) =>
      Array.from(
        { length: 2 },
        () =>
          new Promise<void>((resolve, reject) => {
            subscriptions.push(
              client
                .latch('ready')
                .await$()
                .subscribe({ complete: () => (doneAt.push(performance.now()), resolve()), error: reject }),
            );
          }),
      ),
    );
    await sleep(50);
    expect(await clients[1]!.latch('ready').countDown()).toBe(2);
    expect(await clients[2]!.latch('ready').countDown()).toBe(1);
    await sleep(100);
    expect(doneAt).toEqual([]);
    expect(await setter!.latch('ready').getCount()).toBe(1);
    const zeroAt = performance.now();
    expect(await clients[3]!.latch('ready').countDown()).toBe(0);
    await Promise.all(awaited);
    expect(doneAt).toHaveLength(8);
    // Opened by the `0` message, not by the 1 s re-check.
    expect(Math.max(...doneAt) - zeroAt).toBeLessThan(500);
    expect(await setter!.latch('ready').getCount()).toBe(0);
    // Only the op memory is left, and it expires by itself.
    expect(await f.keys()).toEqual(['rxlock_ops:{ready}']);
    // Counting down an open latch changes nothing.
    expect(await setter!.latch('ready').countDown()).toBe(0);
    expect(await f.keys()).toEqual(['rxlock_ops:{ready}']);
  });

  it('emits once and completes at once when the count is already zero', async () => {
    const f = fixture();
    const client = f.client();
    await expect(lastValueFrom(client.latch('never-set').await$({ waitMs: 0 }))).resolves.toBeUndefined();
  });

  it('errors with LockTimeoutError at waitMs while the count is not zero', async () => {
    const f = fixture();
    const client = f.client();
    await client.latch('stuck').trySetCount(2);
    const started = performance.now();
    const error = await firstValueFrom(client.latch('stuck').await$({ waitMs: 150 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(error).toMatchObject({ lockName: 'stuck', waitMs: 150 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    expect(await client.latch('stuck').delete()).toBe(true);
    expect(await client.latch('stuck').delete()).toBe(false);
  });

  it('opens awaiters when the latch is deleted (a latch without a count is open)', async () => {
    const f = fixture();
    const [awaiter, admin] = [f.client(), f.client()];
    await admin.latch('gate').trySetCount(10);
    const opened = lastValueFrom(awaiter.latch('gate').await$());
    await sleep(50);
    await admin.latch('gate').delete();
    await expect(opened).resolves.toBeUndefined();
  });

  it('keeps Redisson’s layout: a STRING count, deleted when it reaches zero', async () => {
    const f = fixture();
    const client = f.client();
    const gate = client.latch('gate');
    await gate.trySetCount(2);
    expect(await f.get('gate')).toBe('2');
    await gate.countDown();
    expect(await f.get('gate')).toBe('1');
    await gate.countDown();
    expect(await f.get('gate')).toBeNull();
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const gate = client.latch('gate');
    for (const count of [0, -1, 1.5, Number.NaN]) await expect(gate.trySetCount(count)).rejects.toBeInstanceOf(RangeError);
    await expect(gate.trySetCount('3' as never)).rejects.toBeInstanceOf(TypeError);
    await expect(firstValueFrom(gate.await$({ waitMs: -1 }))).rejects.toBeInstanceOf(RangeError);
    await expect(firstValueFrom(gate.await$({ timeout: 5 } as never))).rejects.toBeInstanceOf(TypeError);
    expect(() => client.latch(undefined as never)).toThrow(TypeError);
    expect(f.commands()).toBe(0);
  });

  it('refuses a key of another type with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    const client = f.client();
    await f.setHash('h', 'x', '1');
    const gate = client.latch('h');
    await expect(firstValueFrom(gate.await$())).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(gate.countDown()).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(gate.trySetCount(1)).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(gate.getCount()).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(gate.delete()).rejects.toBeInstanceOf(LockKeyTypeError);
    expect(await f.hget('h', 'x')).toBe('1');
    await f.flush();
  });

  it('refuses a count that is a string but not an integer (cached JSON) with LockKeyTypeError: the latch is not open', async () => {
    const f = fixture();
    const client = f.client();
    await f.setString('cached', '{"a":1}');
    const gate = client.latch('cached');
    for (const refused of [firstValueFrom(gate.await$()), gate.countDown(), gate.trySetCount(1), gate.getCount(), gate.delete()]) {
      const error = await refused.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual(['cached', 'string that is not an integer']);
    }
    expect([await f.get('cached'), await f.keys()]).toEqual(['{"a":1}', ['cached']]);
    await f.flush();
  });
});

describe('latch with Redisson’s RCountDownLatch scripts on the same Redis', () => {
  const scene = sharedRedis();

  it('completes await$ when Redisson counts the latch down to zero', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    // Redisson's trySetCount and countDown, verbatim in substance.
    const trySetCount = `if redis.call('exists', KEYS[1]) == 0 then redis.call('set', KEYS[1], ARGV[2]); redis.call('publish', KEYS[2], ARGV[1]); return 1 else return 0 end`;
    const countDown = `local v = redis.call('decr', KEYS[1]); if v <= 0 then redis.call('del', KEYS[1]) end; if v == 0 then redis.call('publish', KEYS[2], ARGV[1]) end`;
    const channel = 'redisson_countdownlatch__channel__{ready}';
    expect(await redis.eval(trySetCount, 2, 'ready', channel, 1, 2)).toBe(1);
    expect(await client.latch('ready').getCount()).toBe(2);
    const opened = lastValueFrom(client.latch('ready').await$());
    await sleep(50);
    await redis.eval(countDown, 2, 'ready', channel, 0);
    expect(await client.latch('ready').countDown()).toBe(0);
    await expect(opened).resolves.toBeUndefined();
    expect(await redis.eval(trySetCount, 2, 'ready', channel, 1, 1)).toBe(1);
    const openedAgain = lastValueFrom(client.latch('ready').await$());
    await sleep(50);
    const countedAt = performance.now();
    await redis.eval(countDown, 2, 'ready', channel, 0);
    await openedAgain;
    // The 1 s re-check did not do it: Redisson's `0` did.
    expect(performance.now() - countedAt).toBeLessThan(500);
  });
});
