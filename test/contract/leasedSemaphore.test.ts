import type { Redis } from 'ioredis';
import { firstValueFrom, type Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError, type PermitLease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';
import { sharedRedis } from '../support/sharedRedis.js';

function hold(lease$: Observable<PermitLease>): { lease: Promise<PermitLease>; ended: Promise<unknown>; subscription: Subscription } {
  let subscription!: Subscription;
  let ended!: Promise<unknown>;
  const lease = new Promise<PermitLease>((resolve, reject) => {
    ended = new Promise((settle) => {
      subscription = lease$.subscribe({ next: resolve, error: (error: unknown) => (reject(error), settle(error)) });
    });
  });
  lease.catch(() => undefined);
  return { lease, ended, subscription };
}

/** A permit id whose 16 bytes are all below 0x80, so that its raw bytes are the same string on both stores. */
const GHOST_ID = '2a'.repeat(16);
const GHOST_MEMBER = Buffer.from(GHOST_ID, 'hex').toString('latin1');

describeStores('leasedSemaphore contract', (fixture) => {
  it('reclaims the permit of a holder that died when its lease runs out: the waiter has it within lease + a small margin', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    expect(await pool.trySetPermits(0)).toBe(true);
    // A holder that died: it took the only permit, which expires 600 ms from now on the server's clock.
    const plantedAt = performance.now();
    await f.zadd('{pool}:timeout', (await f.serverTime()) + 600, GHOST_MEMBER);
    const waiter = hold(pool.acquire$());
    await waiter.lease;
    const waited = performance.now() - plantedAt;
    expect(waited).toBeGreaterThanOrEqual(590);
    expect(waited).toBeLessThan(600 + 250);
    waiter.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 1)).toBe(true);
    await pool.delete();
  });

  it('errors the holder of an expired permit with LockLostError (expired) and hands the permit to a waiter', async () => {
    const f = fixture();
    const [holderClient, waiterClient] = [f.client(), f.client()];
    await holderClient.leasedSemaphore('pool').trySetPermits(1);
    const holder = hold(holderClient.leasedSemaphore('pool').acquire$(1, { leaseMs: 400 }));
    const lease = await holder.lease;
    const acquiredAt = performance.now();
    const waiter = hold(waiterClient.leasedSemaphore('pool').acquire$());
    const lost = await holder.ended;
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ lockName: 'pool', owner: lease.owner, reason: 'expired' });
    expect(lease.held).toBe(false);
    expect(lease.signal.aborted).toBe(true);
    await waiter.lease;
    expect(performance.now() - acquiredAt).toBeLessThan(400 + 250);
    waiter.subscription.unsubscribe();
    await holderClient.leasedSemaphore('pool').delete();
  });

  it('reports lost (LockLostError) for a permit whose lease ran out before the release, and still returns it to the count', async () => {
    const f = fixture();
    const client = f.client();
    const ends: unknown[] = [];
    client.events$.subscribe((event) => {
      if (event.type === 'released' || event.type === 'release-failed' || event.type === 'lost')
        ends.push(event.type === 'released' ? 'released' : event.error);
    });
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(1);
    const holder = hold(pool.acquire$(1, { leaseMs: 100 }));
    await holder.lease;
    // The holder's event loop stalls past its lease (a long GC pause, synchronous work): the permit expires
    // on the server before the local expiry timer could run, and nobody reclaims it meanwhile.
    const stallUntil = performance.now() + 300;
    while (performance.now() < stallUntil) {
      // busy: the stall
    }
    holder.subscription.unsubscribe();
    expect(await eventually(() => Promise.resolve(ends.length === 1))).toBe(true);
    expect(ends[0]).toBeInstanceOf(LockLostError);
    expect(await pool.availablePermits()).toBe(1);
    await pool.delete();
  });

  it('keeps permits held without leaseMs past the watchdog timeout while subscribed, and gives them back on unsubscribe', async () => {
    const f = fixture();
    const [holderClient, waiterClient] = [f.client({ watchdogTimeoutMs: 300 }), f.client()];
    const pool = holderClient.leasedSemaphore('pool');
    await pool.trySetPermits(2);
    const holder = hold(pool.acquire$(2));
    const lease = await holder.lease;
    await sleep(900);
    expect(lease.held).toBe(true);
    expect(await pool.availablePermits()).toBe(0);
    await expect(firstValueFrom(waiterClient.leasedSemaphore('pool').acquire$(1, { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    holder.subscription.unsubscribe();
    const next = await firstValueFrom(waiterClient.leasedSemaphore('pool').acquire$(2, { waitMs: 2_000 }));
    expect(next.permitIds).toHaveLength(2);
    await pool.delete();
  });

  it('keeps Redisson’s layout: a STRING count and a `{name}:timeout` ZSET of 32-hex-digit permit ids', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    expect(await pool.trySetPermits(5)).toBe(true);
    expect(await pool.trySetPermits(5)).toBe(false);
    const holder = hold(pool.acquire$(3, { leaseMs: 10_000 }));
    const lease = await holder.lease;
    expect(lease.permitIds).toHaveLength(3);
    for (const id of lease.permitIds) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(lease.permitIds).size).toBe(3);
    expect(await f.get('pool')).toBe('2');
    expect((await f.keys()).sort()).toEqual(['pool', 'rxlock_ops:{pool}', '{pool}:timeout']);
    expect(await pool.addPermits(1)).toBe(3);
    holder.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 6)).toBe(true);
    expect(await pool.delete()).toBe(true);
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    for (const [permits, options, type] of [
      [0, undefined, RangeError],
      [-2, undefined, RangeError],
      [Number.NaN, undefined, RangeError],
      [1, { leaseMs: 5 }, RangeError],
      [1, { leaseMs: 1.5 }, RangeError],
      [1, { waitMs: -1 }, RangeError],
      [1, { owner: 'x' }, TypeError],
      [null, undefined, TypeError],
    ] as const) {
      const error = await firstValueFrom(pool.acquire$(permits as never, options as never)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toContain('leasedSemaphore("pool").acquire$');
    }
    await expect(pool.addPermits(Number.NaN)).rejects.toBeInstanceOf(RangeError);
    expect(() => client.leasedSemaphore('a{b')).toThrow(TypeError);
    expect(f.commands()).toBe(0);
  });
});

/** Redisson's RPermitExpirableSemaphore scripts (tryAcquire with ids as 16 raw bytes, tryRelease of one id), with times from the caller's clock. */
const redissonPermits = {
  tryAcquire: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1])
if #expiredIds > 0 then
  redis.call('zrem', KEYS[2], unpack(expiredIds))
  local value = redis.call('incrby', KEYS[1], #expiredIds)
  if tonumber(value) > 0 then redis.call(ARGV[5], KEYS[3], value) end
end
local value = redis.call('get', KEYS[1])
if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then
  redis.call('decrby', KEYS[1], ARGV[1])
  for i = 6, #ARGV, 1 do redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]) end
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[2], ttl) end
  return 'OK'
end
local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if v[1] ~= nil and v[2] ~= ARGV[4] then return ':' .. tostring(v[2]) end
return nil`,
  tryRelease: `local expire = redis.call('zscore', KEYS[3], ARGV[1])
local removed = redis.call('zrem', KEYS[3], ARGV[1])
if tonumber(removed) ~= 1 then return 0 end
local value = redis.call('incrby', KEYS[1], ARGV[2])
redis.call(ARGV[4], KEYS[2], value)
if tonumber(expire) <= tonumber(ARGV[3]) then return 0 end
return 1`,
};

describe('leasedSemaphore with Redisson’s RPermitExpirableSemaphore scripts on the same Redis', () => {
  const scene = sharedRedis();

  const keys = ['pool', '{pool}:timeout', 'redisson_sc:{pool}'];
  const redissonAcquire = (redis: Redis, leaseMs: number, id: string) =>
    redis.eval(redissonPermits.tryAcquire, 3, ...keys, 1, Date.now() + leaseMs, Date.now(), 922337203685477, 'publish', Buffer.from(id, 'hex'));
  const redissonRelease = (redis: Redis, id: string) =>
    redis.eval(redissonPermits.tryRelease, 3, 'pool', 'redisson_sc:{pool}', '{pool}:timeout', Buffer.from(id, 'hex'), 1, Date.now(), 'publish');

  it('takes a Redisson permit back when its lease runs out, and stores its own ids as Redisson does', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(1);
    const redissonId = 'c0ffee'.padEnd(32, '0');
    expect(await redissonAcquire(redis, 500, redissonId)).toBe('OK');
    const acquiredAt = performance.now();
    const mine = hold(pool.acquire$(1, { leaseMs: 20_000 }));
    const lease = await mine.lease;
    const waited = performance.now() - acquiredAt;
    expect(waited).toBeGreaterThanOrEqual(450);
    expect(waited).toBeLessThan(500 + 250);
    // Redisson sees rxlock's permit and would sleep until it expires...
    const refused = String(await redissonAcquire(redis, 500, 'aa'.repeat(16)));
    expect(refused).toMatch(/^:\d+$/);
    expect(Number(refused.slice(1)) - Date.now()).toBeGreaterThan(18_000);
    // ...and can release it by its id, stored as the same 16 bytes.
    expect(await redissonRelease(redis, lease.permitIds[0]!)).toBe(1);
    expect(await redis.get('pool')).toBe('1');
    mine.subscription.unsubscribe();
    await sleep(50);
    // rxlock's own release found its permit gone and changed nothing.
    expect(await redis.get('pool')).toBe('1');
    expect(await pool.delete()).toBe(true);
  });
});
