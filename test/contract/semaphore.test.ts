import { firstValueFrom, type Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockKeyTypeError, LockTimeoutError, type Lease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';
import { sharedRedis } from '../support/sharedRedis.js';

function hold(lease$: Observable<Lease>): { lease: Promise<Lease>; subscription: Subscription } {
  let subscription!: Subscription;
  const lease = new Promise<Lease>((resolve, reject) => {
    subscription = lease$.subscribe({ next: resolve, error: reject });
  });
  return { lease, subscription };
}

describeStores('semaphore contract', (fixture) => {
  it('acquire$(4) on a 5-permit semaphore with 3 taken waits until two are released, then holds', async () => {
    const f = fixture();
    const [a, b, c, big] = [f.client(), f.client(), f.client(), f.client()];
    expect(await a.semaphore('pool').trySetPermits(5)).toBe(true);
    const taken = [hold(a.semaphore('pool').acquire$()), hold(b.semaphore('pool').acquire$()), hold(c.semaphore('pool').acquire$())];
    await Promise.all(taken.map((t) => t.lease));
    expect(await a.semaphore('pool').availablePermits()).toBe(2);
    await expect(firstValueFrom(big.semaphore('pool').acquire$(4, { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    let held = false;
    const four = hold(big.semaphore('pool').acquire$(4));
    void four.lease.then(() => (held = true));
    taken[0]!.subscription.unsubscribe();
    expect(await eventually(async () => (await a.semaphore('pool').availablePermits()) === 3)).toBe(true);
    await sleep(100);
    expect(held).toBe(false);
    taken[1]!.subscription.unsubscribe();
    await four.lease;
    expect(await a.semaphore('pool').availablePermits()).toBe(0);
    four.subscription.unsubscribe();
    taken[2]!.subscription.unsubscribe();
    expect(await eventually(async () => (await a.semaphore('pool').availablePermits()) === 5)).toBe(true);
    expect(await a.semaphore('pool').delete()).toBe(true);
  });

  it('never lets more holders in than there are permits: 6 clients x 5 rounds on 2 permits', async () => {
    const f = fixture();
    const clients = Array.from({ length: 6 }, () => f.client());
    await clients[0]!.semaphore('pool').trySetPermits(2);
    let inside = 0;
    let mostInside = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let round = 0; round < 5; round++) {
          const permit = hold(client.semaphore('pool').acquire$());
          await permit.lease;
          mostInside = Math.max(mostInside, ++inside);
          await sleep(2);
          inside--;
          permit.subscription.unsubscribe();
        }
      }),
    );
    expect(mostInside).toBe(2);
    expect(await eventually(async () => (await clients[0]!.semaphore('pool').availablePermits()) === 2)).toBe(true);
    await clients[0]!.semaphore('pool').delete();
  });

  it('keeps Redisson’s layout: a STRING count that trySetPermits sets once and addPermits may take below zero', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('pool');
    expect(await pool.trySetPermits(3)).toBe(true);
    expect(await pool.trySetPermits(7)).toBe(false);
    expect(await f.get('pool')).toBe('3');
    expect(await pool.addPermits(-5)).toBe(-2);
    expect(await pool.availablePermits()).toBe(-2);
    expect(await pool.addPermits(4)).toBe(2);
    expect(await f.get('pool')).toBe('2');
    const permit = hold(pool.acquire$(2));
    await permit.lease;
    expect(await f.get('pool')).toBe('0');
    permit.subscription.unsubscribe();
    expect(await eventually(async () => (await f.get('pool')) === '2')).toBe(true);
    expect(await pool.delete()).toBe(true);
    expect(await pool.delete()).toBe(false);
    expect(await pool.availablePermits()).toBe(0);
  });

  // Both permit pools: the leased one's fallback (the earliest held permit's expiry, 20 s here) is far later.
  for (const kind of ['semaphore', 'leasedSemaphore'] as const) {
    it(`${kind}: wakes a waiter that needs one permit when one comes back, even behind a waiter that needs more`, async () => {
      const f = fixture();
      const [holder, waiter] = [f.client(), f.client()];
      const pool = waiter[kind]('pool');
      await pool.trySetPermits(2);
      const take = (): Observable<Lease> =>
        kind === 'semaphore' ? holder.semaphore('pool').acquire$() : holder.leasedSemaphore('pool').acquire$(1, { leaseMs: 20_000 });
      const taken = [hold(take()), hold(take())];
      await Promise.all(taken.map((t) => t.lease));
      const two = hold(pool.acquire$(2));
      await sleep(50);
      const one = hold(pool.acquire$(1));
      await sleep(50);
      const releasedAt = performance.now();
      taken[0]!.subscription.unsubscribe();
      // The `1` the release published wakes it: without that, only its fallback re-check would, a second or more later.
      const woken = await Promise.race([one.lease.then(() => true), sleep(2_000).then(() => false)]);
      expect(woken).toBe(true);
      expect(performance.now() - releasedAt).toBeLessThan(500);
      expect(await pool.availablePermits()).toBe(0);
      one.subscription.unsubscribe();
      two.subscription.unsubscribe();
      taken[1]!.subscription.unsubscribe();
      expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
      await pool.delete();
    });
  }

  it('gives permits back when the client closes', async () => {
    const f = fixture();
    const holder = f.client();
    const admin = f.client();
    await admin.semaphore('pool').trySetPermits(1);
    const permit = hold(holder.semaphore('pool').acquire$());
    await permit.lease;
    await holder.close();
    expect(await admin.semaphore('pool').availablePermits()).toBe(1);
    await admin.semaphore('pool').delete();
  });

  it('ends a wait when its signal aborts, with the signal’s reason, and takes nothing', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('pool');
    await pool.trySetPermits(1);
    const controller = new AbortController();
    const waiting = firstValueFrom(pool.acquire$(2, { signal: controller.signal })).catch((e: unknown) => e);
    await sleep(50);
    const reason = new Error('shutting down');
    controller.abort(reason);
    expect(await waiting).toBe(reason);
    expect(await pool.availablePermits()).toBe(1);
    await pool.delete();
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('pool');
    for (const permits of [0, -1, 1.5, Number.NaN, Infinity]) {
      const error = await firstValueFrom(pool.acquire$(permits)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toContain('semaphore("pool").acquire$');
    }
    await expect(firstValueFrom(pool.acquire$('2' as never))).rejects.toBeInstanceOf(TypeError);
    await expect(firstValueFrom(pool.acquire$(1, { waitMs: -5 }))).rejects.toBeInstanceOf(RangeError);
    await expect(firstValueFrom(pool.acquire$(1, { leaseMs: 10 } as never))).rejects.toBeInstanceOf(TypeError);
    await expect(pool.trySetPermits(-1)).rejects.toBeInstanceOf(RangeError);
    await expect(pool.addPermits(0)).rejects.toBeInstanceOf(RangeError);
    await expect(pool.addPermits(0.5)).rejects.toBeInstanceOf(RangeError);
    expect(() => client.semaphore('')).toThrow(TypeError);
    expect(f.commands()).toBe(0);
  });

  it('refuses a key of another type with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    const client = f.client();
    await f.setHash('h', 'x', '1');
    const pool = client.semaphore('h');
    await expect(firstValueFrom(pool.acquire$())).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(pool.trySetPermits(1)).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(pool.addPermits(1)).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(pool.availablePermits()).rejects.toBeInstanceOf(LockKeyTypeError);
    await expect(pool.delete()).rejects.toBeInstanceOf(LockKeyTypeError);
    expect(await f.hget('h', 'x')).toBe('1');
    await f.flush();
  });

  it('refuses a count that is a string but not an integer (cached JSON) with LockKeyTypeError, in both semaphores, and leaves it', async () => {
    const f = fixture();
    const client = f.client();
    await f.setString('cached', '{"a":1}');
    const pool = client.semaphore('cached');
    const leased = client.leasedSemaphore('cached');
    for (const refused of [
      firstValueFrom(pool.acquire$()),
      pool.trySetPermits(1),
      pool.addPermits(1),
      pool.availablePermits(),
      pool.delete(),
      firstValueFrom(leased.acquire$()),
      leased.availablePermits(),
    ]) {
      const error = await refused.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual(['cached', 'string that is not an integer']);
    }
    expect([await f.get('cached'), await f.keys()]).toEqual(['{"a":1}', ['cached']]);
    await f.flush();
  });
});

/** Redisson's RSemaphore scripts (tryAcquire, release). */
const redissonSemaphore = {
  tryAcquire: `local value = redis.call('get', KEYS[1])
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then redis.call('decrby', KEYS[1], ARGV[1]); return 1 end
return 0`,
  release: `local value = redis.call('incrby', KEYS[1], ARGV[1]); redis.call('publish', KEYS[2], value)`,
};

describe('semaphore with Redisson’s RSemaphore scripts on the same Redis', () => {
  const scene = sharedRedis();

  it('shares one pool of permits with Redisson and is woken by Redisson’s release message', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const pool = client.semaphore('pool');
    await pool.trySetPermits(2);
    const mine = hold(pool.acquire$());
    await mine.lease;
    expect(await redis.eval(redissonSemaphore.tryAcquire, 1, 'pool', 1)).toBe(1);
    expect(await redis.eval(redissonSemaphore.tryAcquire, 1, 'pool', 1)).toBe(0);
    const waiting = hold(pool.acquire$());
    await sleep(100);
    const releasedAt = performance.now();
    await redis.eval(redissonSemaphore.release, 2, 'pool', 'redisson_sc:{pool}', 1);
    await waiting.lease;
    // Without a TTL the only fallback is the 1 s poll: the message is what woke it.
    expect(performance.now() - releasedAt).toBeLessThan(500);
    mine.subscription.unsubscribe();
    waiting.subscription.unsubscribe();
    expect(await eventually(async () => (await redis.get('pool')) === '2')).toBe(true);
    expect(await pool.delete()).toBe(true);
  });
});
