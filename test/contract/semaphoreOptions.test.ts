import { type Observable, type Subscription } from 'rxjs';
import { expect, it } from 'vitest';
import { LockKeyTypeError, LockLostError, type Lease } from '../../src/index.js';
import { drainPermitsScript } from '../../src/primitives/semaphore/drainPermitsScript.js';
import { releaseIfExistsScript } from '../../src/primitives/semaphore/releaseIfExistsScript.js';
import { tryReleaseScript } from '../../src/primitives/leasedSemaphore/tryReleaseScript.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

function hold<L extends Lease>(lease$: Observable<L>): { lease: Promise<L>; ended: Promise<unknown>; subscription: Subscription } {
  let subscription!: Subscription;
  let ended!: Promise<unknown>;
  const lease = new Promise<L>((resolve, reject) => {
    ended = new Promise((settle) => {
      subscription = lease$.subscribe({ next: resolve, error: (error: unknown) => (reject(error), settle(error)) });
    });
  });
  lease.catch(() => undefined);
  return { lease, ended, subscription };
}

/** A permit id whose 16 bytes are all below 0x80, so that its raw bytes are the same string on both stores. */
const PEER_ID = '2b'.repeat(16);
const PEER_MEMBER = Buffer.from(PEER_ID, 'hex').toString('latin1');
const OTHER_ID = '3c'.repeat(16);
const OTHER_MEMBER = Buffer.from(OTHER_ID, 'hex').toString('latin1');
const NO_LEASE = 922337203685477;

describeStores('semaphore options Redisson gained (trySetPermits with a TTL, releaseIfExists, drainPermits)', (fixture) => {
  it('trySetPermits with ttlMs sets a count that expires, and a hold’s record expires with it', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('pool');
    expect(await pool.trySetPermits(2, { ttlMs: 400 })).toBe(true);
    expect(await pool.trySetPermits(5, { ttlMs: 400 })).toBe(false);
    const ttl = await f.pttl('pool');
    expect(ttl).toBeGreaterThan(300);
    expect(ttl).toBeLessThanOrEqual(400);
    const permit = hold(pool.acquire$());
    await permit.lease;
    expect(await f.pttl('rxlock_holds:{pool}')).toBeGreaterThan(0);
    expect(await f.pttl('rxlock_holds:{pool}')).toBeLessThanOrEqual(ttl);
    expect(await eventually(async () => (await f.keys()).filter((key) => key !== 'rxlock_ops:{pool}').length === 0, 1_000)).toBe(true);
    expect(await pool.availablePermits()).toBe(0);
    // The release of a hold on a semaphore that expired under it brings nothing back.
    permit.subscription.unsubscribe();
    await sleep(50);
    expect(await f.get('pool')).toBeNull();
  });

  it('releaseIfExists adds to a count that exists and wakes a waiter, and brings back none that is gone', async () => {
    const f = fixture();
    const [admin, waiter] = [f.client(), f.client()];
    const pool = admin.semaphore('pool');
    expect(await pool.releaseIfExists(2)).toBe(false);
    expect(await f.keys()).toEqual(['rxlock_ops:{pool}']);
    expect(await pool.trySetPermits(0)).toBe(true);
    const waiting = hold(waiter.semaphore('pool').acquire$(2));
    await sleep(50);
    const releasedAt = performance.now();
    expect(await pool.releaseIfExists(2)).toBe(true);
    await waiting.lease;
    // The count the release published woke it: without it, only the blind re-check a second later would.
    expect(performance.now() - releasedAt).toBeLessThan(500);
    expect(await pool.availablePermits()).toBe(0);
    waiting.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
    expect(await pool.delete()).toBe(true);
  });

  it('drainPermits takes the available permits, keeps the count’s TTL, and lets holds give theirs back', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('pool');
    expect(await pool.drainPermits()).toBe(0);
    expect(await f.get('pool')).toBeNull();
    await pool.trySetPermits(5, { ttlMs: 60_000 });
    const permit = hold(pool.acquire$(2));
    await permit.lease;
    expect(await pool.drainPermits()).toBe(3);
    expect(await f.get('pool')).toBe('0');
    expect(await f.pttl('pool')).toBeGreaterThan(50_000);
    expect(await pool.drainPermits()).toBe(0);
    permit.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
    // A count below zero comes back as it was and the count rises to 0, as java.util.concurrent.Semaphore's does.
    expect(await pool.addPermits(-5)).toBe(-3);
    expect(await pool.drainPermits()).toBe(-3);
    expect(await f.get('pool')).toBe('0');
    expect(await pool.delete()).toBe(true);
  });

  it('a re-sent releaseIfExists or drainPermits (same op id) answers its first reply and changes nothing', async () => {
    const f = fixture();
    const pool = f.client().semaphore('pool');
    const keys = ['pool', 'redisson_sc:{pool}', 'rxlock_ops:{pool}'];
    expect(await f.run(releaseIfExistsScript, keys, [2, 'rie-0', 'publish'])).toBe(false);
    await pool.trySetPermits(1);
    expect(await f.run(releaseIfExistsScript, keys, [2, 'rie-0', 'publish'])).toBe(false);
    expect(await f.run(releaseIfExistsScript, keys, [2, 'rie-1', 'publish'])).toBe(true);
    expect(await f.run(releaseIfExistsScript, keys, [2, 'rie-1', 'publish'])).toBe(true);
    expect(await f.get('pool')).toBe('3');
    expect(await f.run(drainPermitsScript, ['pool', 'rxlock_ops:{pool}'], ['drain-1'])).toBe(3);
    expect(await f.run(drainPermitsScript, ['pool', 'rxlock_ops:{pool}'], ['drain-1'])).toBe(3);
    expect(await f.get('pool')).toBe('0');
    await pool.delete();
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const pool = f.client().semaphore('pool');
    for (const [call, type] of [
      [() => pool.trySetPermits(1, { ttlMs: 0 }), RangeError],
      [() => pool.trySetPermits(1, { ttlMs: 1.5 }), RangeError],
      [() => pool.trySetPermits(1, { ttlMs: '5' as never }), TypeError],
      [() => pool.trySetPermits(1, { ttl: 5 } as never), TypeError],
      [() => pool.trySetPermits(1, 5 as never), TypeError],
      [() => pool.releaseIfExists(0), RangeError],
      [() => pool.releaseIfExists(-1), RangeError],
      [() => pool.releaseIfExists(Number.NaN), RangeError],
      [() => pool.releaseIfExists('1' as never), TypeError],
    ] as const) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toContain('semaphore("pool").');
    }
    expect(f.commands()).toBe(0);
  });

  it('refuses a key of another type with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    await f.setHash('h', 'x', '1');
    const pool = f.client().semaphore('h');
    for (const refused of [pool.trySetPermits(1, { ttlMs: 1_000 }), pool.releaseIfExists(1), pool.drainPermits()]) {
      await expect(refused).rejects.toBeInstanceOf(LockKeyTypeError);
    }
    expect([await f.hget('h', 'x'), await f.keys()]).toEqual(['1', ['h']]);
    await f.flush();
  });
});

describeStores('leasedSemaphore options Redisson gained (lease time by id, release by ids, permit counts)', (fixture) => {
  it('reads and moves a held permit’s lease by its id, and answers for ids that are not held', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(2);
    const holder = hold(pool.acquire$(1, { leaseMs: 10_000 }));
    const [id] = (await holder.lease).permitIds;
    const left = await pool.getLeaseTime(id!);
    expect(left).toBeGreaterThan(9_000);
    expect(left).toBeLessThanOrEqual(10_000);
    expect(await pool.updateLeaseTime(id!, 60_000)).toBe(true);
    expect(await pool.getLeaseTime(id!)).toBeGreaterThan(59_000);
    expect(await pool.updateLeaseTime(id!, Infinity)).toBe(true);
    expect(await pool.getLeaseTime(id!)).toBe(Infinity);
    // Not held: nothing is added.
    expect(await pool.updateLeaseTime(PEER_ID, 1_000)).toBe(false);
    expect(await pool.getLeaseTime(PEER_ID)).toBeUndefined();
    expect(await f.zscore('{pool}:timeout', PEER_MEMBER)).toBeNull();
    holder.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
    expect(await pool.getLeaseTime(id!)).toBeUndefined();
    await pool.delete();
  });

  it('lengthening a peer’s permit lease keeps a waiter out until the new lease runs out', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(0);
    const plantedAt = performance.now();
    await f.zadd('{pool}:timeout', (await f.serverTime()) + 300, PEER_MEMBER);
    const waiter = hold(pool.acquire$(1, { leaseMs: 10_000 }));
    await sleep(50);
    expect(await pool.updateLeaseTime(PEER_ID, 1_200)).toBe(true);
    await waiter.lease;
    // Woken at the old expiry (300 ms), the waiter learnt the new one and slept until it.
    const waited = performance.now() - plantedAt;
    expect(waited).toBeGreaterThanOrEqual(1_200);
    expect(waited).toBeLessThan(1_250 + 250);
    waiter.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 1)).toBe(true);
    await pool.delete();
  });

  it('tryRelease(ids) is all or nothing; release(ids) rejects with LockLostError when not all went back', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(0);
    const now = await f.serverTime();
    await f.zadd('{pool}:timeout', now + 60_000, PEER_MEMBER);
    await f.zadd('{pool}:timeout', NO_LEASE, OTHER_MEMBER);
    const missing = 'ff'.repeat(16);
    expect(await pool.tryRelease([PEER_ID, missing])).toBe(0);
    expect(await pool.acquiredPermits()).toBe(2);
    expect(await pool.availablePermits()).toBe(0);
    await expect(pool.release([OTHER_ID, missing])).rejects.toBeInstanceOf(LockLostError);
    expect(await pool.acquiredPermits()).toBe(2);
    expect(await pool.tryRelease([PEER_ID, OTHER_ID.toUpperCase()])).toBe(2);
    expect(await pool.availablePermits()).toBe(2);
    expect(await pool.tryRelease(PEER_ID)).toBe(false);
    const error = await pool.release(PEER_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockLostError);
    expect(error).toMatchObject({ lockName: 'pool', owner: `permit ${PEER_ID}` });
    await f.zadd('{pool}:timeout', now + 60_000, PEER_MEMBER);
    await expect(pool.release(PEER_ID)).resolves.toBeUndefined();
    expect(await pool.availablePermits()).toBe(3);
    await pool.delete();
  });

  it('a permit of a held PermitLease released by id errors its stream with LockLostError at the next renewal', async () => {
    const f = fixture();
    const client = f.client({ watchdogTimeoutMs: 300 });
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(2);
    const holder = hold(pool.acquire$(2));
    const lease = await holder.lease;
    expect(await pool.tryRelease(lease.permitIds[0]!)).toBe(true);
    const lost = await Promise.race([holder.ended, sleep(1_000).then(() => 'still held')]);
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ reason: 'not-held' });
    // The loss gave the other permit back too.
    expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
    await pool.delete();
  });

  it('a re-sent tryRelease (same op id) answers how many its first run gave back, and gives back nothing more', async () => {
    const f = fixture();
    const pool = f.client().leasedSemaphore('pool');
    await pool.trySetPermits(0);
    await f.zadd('{pool}:timeout', (await f.serverTime()) + 60_000, PEER_MEMBER);
    const keys = ['pool', '{pool}:timeout', 'redisson_sc:{pool}', 'rxlock_ops:{pool}'];
    expect(await f.run(tryReleaseScript, keys, ['rel-1', 'publish', PEER_ID])).toBe(1);
    expect(await f.run(tryReleaseScript, keys, ['rel-1', 'publish', PEER_ID])).toBe(1);
    expect(await f.run(tryReleaseScript, keys, ['rel-2', 'publish', PEER_ID])).toBe(0);
    expect(await pool.availablePermits()).toBe(1);
    await pool.delete();
  });

  it('counts held and total permits, and setPermits moves the available count to reach a total', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.leasedSemaphore('pool');
    expect([await pool.acquiredPermits(), await pool.totalPermits()]).toEqual([0, 0]);
    expect(await pool.setPermits(4)).toBe(4);
    const holder = hold(pool.acquire$(3, { leaseMs: 10_000 }));
    await holder.lease;
    expect([await pool.availablePermits(), await pool.acquiredPermits(), await pool.totalPermits()]).toEqual([1, 3, 4]);
    expect(await pool.setPermits(2)).toBe(-1);
    expect(await pool.setPermits(2)).toBe(-1);
    expect([await pool.acquiredPermits(), await pool.totalPermits()]).toEqual([3, 2]);
    holder.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 2)).toBe(true);
    expect(await pool.setPermits(6)).toBe(6);
    expect(await pool.totalPermits()).toBe(6);
    // An expired permit counts as back in the pool once read.
    await f.zadd('{pool}:timeout', (await f.serverTime()) - 1, PEER_MEMBER);
    expect([await pool.acquiredPermits(), await pool.availablePermits()]).toEqual([0, 7]);
    await pool.delete();
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const pool = f.client().leasedSemaphore('pool');
    const id = 'ab'.repeat(16);
    for (const [call, type] of [
      [() => pool.updateLeaseTime(id, 0), RangeError],
      [() => pool.updateLeaseTime(id, -Infinity), RangeError],
      [() => pool.updateLeaseTime(id, 2.5), RangeError],
      [() => pool.updateLeaseTime(id, '100' as never), TypeError],
      [() => pool.updateLeaseTime('abc', 100), RangeError],
      [() => pool.updateLeaseTime(7 as never, 100), TypeError],
      [() => pool.getLeaseTime('zz'.repeat(16)), RangeError],
      [() => pool.tryRelease([]), RangeError],
      [() => pool.tryRelease([id, id.toUpperCase()]), RangeError],
      [() => pool.tryRelease([id, 5 as never]), TypeError],
      [() => pool.tryRelease(null as never), TypeError],
      [() => pool.tryRelease(Array.from({ length: 10_001 }, (_, i) => i.toString(16).padStart(32, '0'))), RangeError],
      [() => pool.release('nope'), RangeError],
      [() => pool.setPermits(-1), RangeError],
      [() => pool.setPermits(1.5), RangeError],
    ] as const) {
      const error = await (call as () => Promise<unknown>)().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toContain('leasedSemaphore("pool").');
    }
    expect(f.commands()).toBe(0);
  });

  it('refuses a key of another type with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    await f.setHash('h', 'x', '1');
    const pool = f.client().leasedSemaphore('h');
    const id = 'ab'.repeat(16);
    for (const refused of [
      pool.updateLeaseTime(id, 1_000),
      pool.getLeaseTime(id),
      pool.tryRelease([id]),
      pool.acquiredPermits(),
      pool.totalPermits(),
      pool.setPermits(3),
    ]) {
      await expect(refused).rejects.toBeInstanceOf(LockKeyTypeError);
    }
    expect([await f.hget('h', 'x'), await f.keys()]).toEqual(['1', ['h']]);
    await f.flush();
  });
});
