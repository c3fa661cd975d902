import { firstValueFrom, type Observable, type Subscription } from 'rxjs';
import { expect, it } from 'vitest';
import { LockKeyTypeError, LockLostError, LockTimeoutError, MAX_GROUP_VALUES, type Lease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

function hold(lease$: Observable<Lease>): { lease: Promise<Lease>; ended: Promise<unknown>; subscription: Subscription } {
  let subscription!: Subscription;
  let ended!: Promise<unknown>;
  const lease = new Promise<Lease>((resolve, reject) => {
    ended = new Promise((settle) => {
      subscription = lease$.subscribe({ next: resolve, error: (error: unknown) => (reject(error), settle(error)) });
    });
  });
  lease.catch(() => undefined);
  return { lease, ended, subscription };
}

/**
 * The fields Redisson's RedissonFasterMultiLock locks these values under (a client with StringCodec), computed
 * with Redisson's own `org.redisson.misc.HighwayHash` and `Hash.hash128toBase64`'s steps on the JVM.
 */
const FIELD = {
  Jack_001: '7pNoDdizVy2xY792MaFv+w',
  Mary_002: 'kIX2DFOX4IWct7G7K6tV9A',
  'sku:42': 'ED7p5F83164lGyqURuaxaA',
} as const;

describeStores('groupLock$ contract (Redisson’s RedissonFasterMultiLock)', (fixture) => {
  it('keeps Redisson’s layout: value → owner, value:owner:expire_time on the server’s clock, value:owner:lock_count', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-a' });
    const held = hold(client.groupLock$('class_100', ['Jack_001', 'Mary_002', 'Jack_001'], { owner: 'w1' }));
    await held.lease;
    const now = await f.serverTime();
    const hash = await f.hgetall('class_100');
    expect(Object.keys(hash).sort()).toEqual(
      [FIELD.Jack_001, FIELD.Mary_002].flatMap((field) => [field, `${field}:node-a:w1:expire_time`, `${field}:node-a:w1:lock_count`]).sort(),
    );
    for (const field of [FIELD.Jack_001, FIELD.Mary_002]) {
      expect(hash[field]).toBe('node-a:w1');
      expect(hash[`${field}:node-a:w1:lock_count`]).toBe('1');
      const expiry = Number(hash[`${field}:node-a:w1:expire_time`]);
      expect(expiry).toBeGreaterThan(now + 29_000);
      expect(expiry).toBeLessThanOrEqual(now + 30_000);
    }
    expect(await f.pttl('class_100')).toBeGreaterThan(29_000);
    held.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('takes all values or none: a group that shares a value waits, one that does not is granted at once, and the release wakes the waiter', async () => {
    const f = fixture();
    const [a, b, c] = [f.client(), f.client(), f.client()];
    const first = hold(a.groupLock$('class_100', ['Jack_001', 'Mary_002']));
    await first.lease;
    let granted = false;
    const overlapping = hold(b.groupLock$('class_100', ['Mary_002', 'sku:42']));
    void overlapping.lease.then(() => (granted = true));
    const disjoint = hold(c.groupLock$('class_100', ['sku:42-other']));
    await disjoint.lease;
    await sleep(100);
    expect(granted).toBe(false);
    // The waiter took nothing meanwhile: sku:42 is still free.
    expect(await f.hget('class_100', FIELD['sku:42'])).toBeNull();
    const releasedAt = performance.now();
    first.subscription.unsubscribe();
    await overlapping.lease;
    // The release's message woke it; its fallback was the holder's expiry, 30 s away.
    expect(performance.now() - releasedAt).toBeLessThan(500);
    overlapping.subscription.unsubscribe();
    disjoint.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('wakes every waiter of the group at a release, not only the first in line', async () => {
    const f = fixture();
    const [holder, waiters] = [f.client(), f.client()];
    const held = hold(holder.groupLock$('g', ['a', 'b']));
    await held.lease;
    const onA = hold(waiters.groupLock$('g', ['a']));
    await sleep(30);
    const onB = hold(waiters.groupLock$('g', ['b']));
    await sleep(50);
    const releasedAt = performance.now();
    held.subscription.unsubscribe();
    await Promise.all([onA.lease, onB.lease]);
    expect(performance.now() - releasedAt).toBeLessThan(500);
    onA.subscription.unsubscribe();
    onB.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('re-enters for one owner, value by value, and frees a value at its owner’s last hold', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-a' });
    const outer = hold(client.groupLock$('g', ['Jack_001', 'Mary_002'], { owner: 'job' }));
    await outer.lease;
    const inner = hold(client.groupLock$('g', ['Mary_002'], { owner: 'job', waitMs: 0 }));
    await inner.lease;
    expect(await f.hget('g', `${FIELD.Mary_002}:node-a:job:lock_count`)).toBe('2');
    expect(await f.hget('g', `${FIELD.Jack_001}:node-a:job:lock_count`)).toBe('1');
    outer.subscription.unsubscribe();
    expect(await eventually(async () => (await f.hget('g', FIELD.Jack_001)) === null)).toBe(true);
    expect(await f.hget('g', FIELD.Mary_002)).toBe('node-a:job');
    expect(await f.hget('g', `${FIELD.Mary_002}:node-a:job:lock_count`)).toBe('1');
    inner.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('gives up with LockTimeoutError after waitMs and leaves no trace', async () => {
    const f = fixture();
    const [a, b] = [f.client(), f.client()];
    const held = hold(a.groupLock$('g', ['x']));
    await held.lease;
    await expect(firstValueFrom(b.groupLock$('g', ['x', 'y'], { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const started = performance.now();
    const error = await firstValueFrom(b.groupLock$('g', ['y', 'x'], { waitMs: 200 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(Object.keys(await f.hgetall('g'))).toHaveLength(3);
    held.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('with leaseMs, errors with LockLostError (expired) before the values expire, and a waiter then has them', async () => {
    const f = fixture();
    const [a, b] = [f.client(), f.client()];
    const held = hold(a.groupLock$('g', ['x', 'y'], { leaseMs: 300 }));
    const lease = await held.lease;
    const acquiredAt = performance.now();
    const waiter = hold(b.groupLock$('g', ['y']));
    const lost = await held.ended;
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ lockName: 'g', owner: lease.owner, reason: 'expired' });
    await waiter.lease;
    expect(performance.now() - acquiredAt).toBeLessThan(300 + 250);
    waiter.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('the watchdog keeps every value past the watchdog timeout while subscribed', async () => {
    const f = fixture();
    const client = f.client({ watchdogTimeoutMs: 300, clientId: 'node-a' });
    const held = hold(client.groupLock$('g', ['Jack_001', 'Mary_002'], { owner: 'w' }));
    const lease = await held.lease;
    await sleep(800);
    expect(lease.held).toBe(true);
    const now = await f.serverTime();
    for (const field of [FIELD.Jack_001, FIELD.Mary_002]) {
      expect(Number(await f.hget('g', `${field}:node-a:w:expire_time`))).toBeGreaterThan(now);
    }
    await expect(firstValueFrom(f.client().groupLock$('g', ['Mary_002'], { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    held.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('an owner’s hold kept by the watchdog past the first TTL still releases cleanly (its hold id is renewed too)', async () => {
    const f = fixture();
    const client = f.client({ watchdogTimeoutMs: 300 });
    const ends: string[] = [];
    client.events$.subscribe((event) => {
      if (event.type === 'released' || event.type === 'release-failed') ends.push(event.type);
    });
    const held = hold(client.groupLock$('g', ['x', 'y'], { owner: 'job' }));
    await held.lease;
    await sleep(800);
    expect(await f.pttl('rxlock_holds:{g}')).toBeGreaterThan(0);
    held.subscription.unsubscribe();
    expect(await eventually(() => ends.length === 1)).toBe(true);
    expect(ends).toEqual(['released']);
    expect(await f.keys()).toEqual([]);
  });

  it('errors with LockLostError (not-held) when a value is taken from it, and frees the values it still had', async () => {
    const f = fixture();
    const client = f.client({ watchdogTimeoutMs: 300, clientId: 'node-a' });
    const held = hold(client.groupLock$('g', ['Jack_001', 'Mary_002'], { owner: 'w' }));
    await held.lease;
    // Somebody else's hold on Mary_002 now (its expiry was cut short and a peer took it over).
    await f.setHash('g', FIELD.Mary_002, 'peer:1');
    await f.setHash('g', `${FIELD.Mary_002}:peer:1:expire_time`, String((await f.serverTime()) + 60_000));
    const lost = await Promise.race([held.ended, sleep(1_000).then(() => 'still held')]);
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ reason: 'not-held' });
    expect(await eventually(async () => (await f.hget('g', FIELD.Jack_001)) === null)).toBe(true);
    expect(await f.hget('g', FIELD.Mary_002)).toBe('peer:1');
    await f.flush();
  });

  it('releases its values when the client closes', async () => {
    const f = fixture();
    const holder = f.client();
    const held = hold(holder.groupLock$('g', ['x', 'y']));
    await held.lease;
    await holder.close();
    expect(await f.keys()).toEqual([]);
  });

  it('locks a Uint8Array value under its bytes, as a string under its UTF-8 bytes', async () => {
    const f = fixture();
    const client = f.client();
    const held = hold(client.groupLock$('g', [new TextEncoder().encode('sku:42')]));
    await held.lease;
    expect(await f.hget('g', FIELD['sku:42'])).not.toBeNull();
    await expect(firstValueFrom(f.client().groupLock$('g', ['sku:42'], { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    held.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('refuses bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    for (const [values, options, type] of [
      [[], undefined, RangeError],
      [Array.from({ length: MAX_GROUP_VALUES + 1 }, (_, i) => String(i)), undefined, RangeError],
      ['abc', undefined, TypeError],
      [[1], undefined, TypeError],
      [['\uD800'], undefined, TypeError],
      [['a'], { leaseMs: 5 }, RangeError],
      [['a'], { waitMs: -1 }, RangeError],
      [['a'], { owner: 'a:b' }, TypeError],
      [['a'], { fencing: true }, TypeError],
      [['a'], { signal: 'x' }, TypeError],
    ] as const) {
      const error = await firstValueFrom(client.groupLock$('g', values as never, options as never)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toContain('groupLock$("g")');
    }
    await expect(firstValueFrom(client.groupLock$('', ['a']))).rejects.toBeInstanceOf(TypeError);
    expect(f.commands()).toBe(0);
  });

  it('refuses a key of another type, or a read-write lock’s hash, with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    const client = f.client();
    await f.setString('s', 'cached');
    await f.setHash('rw', 'mode', 'read');
    for (const name of ['s', 'rw']) {
      await expect(firstValueFrom(client.groupLock$(name, ['a']))).rejects.toBeInstanceOf(LockKeyTypeError);
    }
    expect([await f.get('s'), await f.hgetall('rw'), (await f.keys()).sort()]).toEqual(['cached', { mode: 'read' }, ['rw', 's']]);
    await f.flush();
  });
});
