import { firstValueFrom, lastValueFrom, map, take, toArray } from 'rxjs';
import { expect, it } from 'vitest';
import { LockKeyTypeError, LockTimeoutError, LockLostError, type Lease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

describeStores('lock$ contract', (fixture) => {
  it('excludes: 8 clients doing read-delay-write on a shared counter lose no update', async () => {
    const f = fixture();
    const clients = Array.from({ length: 8 }, () => f.client());
    let counter = 0;
    let inside = 0;
    let overlaps = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < 10; i++) {
          await client.withLock('counter', async () => {
            if (++inside > 1) overlaps++;
            const read = counter;
            await sleep(1);
            counter = read + 1;
            inside--;
          });
        }
      }),
    );
    expect({ counter, overlaps }).toEqual({ counter: 80, overlaps: 0 });
  });

  it('re-enters for the same owner and frees the lock only when every hold is released', async () => {
    const f = fixture();
    const client = f.client();
    const other = f.client();
    const first = client.lock$('r', { owner: 'job' }).subscribe();
    const second = client.lock$('r', { owner: 'job' }).subscribe();
    expect(await eventually(async () => (await client.holdCount('r', 'job')) === 2)).toBe(true);
    first.unsubscribe();
    expect(await eventually(async () => (await client.holdCount('r', 'job')) === 1)).toBe(true);
    await expect(firstValueFrom(other.lock$('r', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    second.unsubscribe();
    expect(await eventually(async () => !(await client.isLocked('r')))).toBe(true);
    const lease = await firstValueFrom(other.lock$('r', { waitMs: 1000 }).pipe(map((l: Lease) => l.name)));
    expect(lease).toBe('r');
  });

  it('stores Redisson’s layout: a hash field <clientId>:<owner> with the hold count and a TTL', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-1', watchdogTimeoutMs: 30_000 });
    const handle = await client.acquire('layout', { owner: 'worker-7' });
    expect(await f.hget('layout', 'node-1:worker-7')).toBe('1');
    const ttl = await f.pttl('layout');
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await handle.release();
    expect(await f.keys()).toEqual([]);
  });

  it('answers isLocked, holdCount, remainingTtl and forceUnlock', async () => {
    const f = fixture();
    const client = f.client();
    expect(await client.isLocked('q')).toBe(false);
    expect(await client.remainingTtl('q')).toBe(-2);
    const handle = await client.acquire('q', { leaseMs: 10_000 });
    expect(await client.isLocked('q')).toBe(true);
    expect(await client.holdCount('q')).toBe(1);
    const ttl = await client.remainingTtl('q');
    expect(ttl).toBeGreaterThan(9_000);
    expect(await client.forceUnlock('q')).toBe(true);
    expect(await client.isLocked('q')).toBe(false);
    await expect(handle.release()).rejects.toBeInstanceOf(LockLostError);
    expect(await client.forceUnlock('q')).toBe(false);
  });

  it('times out a waiter with LockTimeoutError and leaves nothing behind', async () => {
    const f = fixture();
    const holder = f.client();
    const waiter = f.client();
    const handle = await holder.acquire('t');
    const started = performance.now();
    await expect(firstValueFrom(waiter.lock$('t', { waitMs: 100 }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    await handle.release();
  });

  it('refuses a key of another type with LockKeyTypeError naming it, and leaves the key untouched', async () => {
    const f = fixture();
    const client = f.client();
    await f.setString('str', 'payload');
    await f.setList('lst', ['x']);
    await f.setString('a lock name with spaces', 'payload');
    for (const [key, type] of [
      ['str', 'string'],
      ['lst', 'list'],
      ['a lock name with spaces', 'string'],
    ]) {
      const error = await firstValueFrom(client.lock$(key!)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual([key, type]);
      expect((error as Error).message).toContain(`"${key!}"`);
    }
    await expect(client.forceUnlock('str')).rejects.toBeInstanceOf(LockKeyTypeError);
    expect(await f.get('str')).toBe('payload');
    expect((await f.keys()).sort()).toEqual(['a lock name with spaces', 'lst', 'str']);
    await f.flush();
  });

  it('refuses another application’s hash (a value that is no hold count) in forceUnlock, and in lock$ when it has no TTL', async () => {
    const f = fixture();
    const client = f.client();
    await f.setHash('user:42', 'name', 'Ann');
    await f.setHash('user:42', 'email', 'a@b');
    for (const refused of [client.forceUnlock('user:42'), firstValueFrom(client.lock$('user:42', { waitMs: 2_000 })), client.acquire('user:42')]) {
      const error = await refused.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual(['user:42', 'hash that is not a lock']);
      expect((error as Error).message).toBe(
        'rxlock: key "user:42" of "user:42" holds a hash that is not a lock, not what this primitive stores; left untouched',
      );
    }
    expect([await f.hgetall('user:42'), await f.pttl('user:42'), await f.keys()]).toEqual([{ name: 'Ann', email: 'a@b' }, -1, ['user:42']]);
    await f.flush();
  });

  it('names a waiters key of another type to whoever would wait, and still releases the lock over it', async () => {
    const f = fixture();
    const [holder, other] = [f.client(), f.client()];
    const failures: string[] = [];
    holder.events$.subscribe((event) => {
      if (event.type === 'release-failed') failures.push(event.error.message);
    });
    const handle = await holder.acquire('queue-kept');
    await f.setString('rxlock_waiters:{queue-kept}', 'payload');
    const waiting = await firstValueFrom(other.lock$('queue-kept')).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(LockKeyTypeError);
    expect([(waiting as LockKeyTypeError).key, (waiting as LockKeyTypeError).actualType]).toEqual(['rxlock_waiters:{queue-kept}', 'string']);
    await handle.release();
    expect(failures).toEqual([]);
    const afterwards = await firstValueFrom(other.lock$('queue-kept')).catch((e: unknown) => e);
    expect((afterwards as LockKeyTypeError).key).toBe('rxlock_waiters:{queue-kept}');
    expect(await f.keys()).toEqual(['rxlock_waiters:{queue-kept}']);
    expect(await f.get('rxlock_waiters:{queue-kept}')).toBe('payload');
    await f.flush();
  });

  it('names a holds key of another type when a reentrant owner releases, and changes nothing', async () => {
    const f = fixture();
    const client = f.client();
    const failures: unknown[] = [];
    client.events$.subscribe((event) => {
      if (event.type === 'release-failed') failures.push(event.error);
    });
    const handle = await client.acquire('reentered', { owner: 'worker-1' });
    const held = await f.hgetall('reentered');
    await f.setString('rxlock_holds:{reentered}', 'payload');
    const error = await handle.release().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockKeyTypeError);
    expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual(['rxlock_holds:{reentered}', 'string']);
    expect(failures).toEqual([error]);
    expect([await f.hgetall('reentered'), await f.get('rxlock_holds:{reentered}')]).toEqual([held, 'payload']);
    await f.flush();
  });

  it('never cuts short a fixed lease that its owner also holds under the watchdog', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-1', watchdogTimeoutMs: 300 });
    const other = f.client();
    let renewals = 0;
    client.events$.subscribe((event) => {
      if (event.type === 'renewed') renewals++;
    });
    const fixed = await client.acquire('mixed', { owner: 'job', leaseMs: 10_000 });
    const watched = client.lock$('mixed', { owner: 'job' }).subscribe();
    expect(await eventually(() => renewals >= 2)).toBe(true);
    expect(await f.pttl('mixed')).toBeGreaterThan(5_000);
    watched.unsubscribe();
    expect(await eventually(async () => (await f.hget('mixed', 'node-1:job')) === '1')).toBe(true);
    // Longer than the watchdog's TTL: a key cut down to it by a renewal would be gone by now.
    await sleep(500);
    expect(await f.pttl('mixed')).toBeGreaterThan(5_000);
    await expect(firstValueFrom(other.lock$('mixed', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    await fixed.release();
    expect(await f.keys()).toEqual([]);
  });

  it('hands the lock over to waiters in turn: every subscriber gets it once', async () => {
    const f = fixture();
    const clients = Array.from({ length: 4 }, () => f.client());
    const order = await Promise.all(
      clients.map((client, i) =>
        client.withLock('turns', async () => {
          await sleep(5);
          return i;
        }),
      ),
    );
    expect(order.sort()).toEqual([0, 1, 2, 3]);
  });

  it('does not let a holder that releases and re-acquires in a tight loop starve the waiters', async () => {
    const f = fixture();
    const clients = Array.from({ length: 4 }, () => f.client());
    const order: number[] = [];
    await Promise.all(
      clients.map(async (client, i) => {
        for (let n = 0; n < 12; n++) await client.withLock('tight', () => void order.push(i));
      }),
    );
    let longestRun = 1;
    for (let i = 1, run = 1; i < order.length; i++) {
      run = order[i] === order[i - 1] ? run + 1 : 1;
      longestRun = Math.max(longestRun, run);
    }
    const changes = order.filter((client, i) => i > 0 && client !== order[i - 1]).length;
    // Each unlock reserves the lock for the longest-waiting waiter, so holders rotate. (A reservation that
    // runs out on an overloaded machine lets another waiter in, so allow a little slack.)
    expect(order).toHaveLength(48);
    expect(longestRun).toBeLessThanOrEqual(3);
    expect(changes / (order.length - 1)).toBeGreaterThan(0.8);
  });

  it('gives fencing tokens that grow with every grant across clients', async () => {
    const f = fixture();
    const clients = Array.from({ length: 5 }, () => f.client());
    const tokens: (number | undefined)[] = [];
    for (const client of clients) tokens.push(await client.withLock('fenced', (lease) => lease.token, { fencing: true }));
    expect(tokens).toEqual([1, 2, 3, 4, 5]);
    await f.flush();
  });

  it('emits exactly one lease and stays open', async () => {
    const f = fixture();
    const client = f.client();
    const leases = await lastValueFrom(client.lock$('one').pipe(take(1), toArray()));
    expect(leases).toHaveLength(1);
  });
});
