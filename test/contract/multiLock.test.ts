import { firstValueFrom, lastValueFrom, switchMap, take, timer } from 'rxjs';
import { expect, it } from 'vitest';
import { LockLostError, LockTimeoutError, type LockClient, type MultiLease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

/** Holds the multi-lock while `work` runs, then releases it. */
async function whileHolding<T>(client: LockClient, names: string[], work: (lease: MultiLease) => Promise<T>, options?: { waitMs?: number }): Promise<T> {
  // The work runs inside the subscription; its result completes it, which releases every member.
  return lastValueFrom(client.multiLock$(names, options).pipe(switchMap(work), take(1)));
}

describeStores('multiLock$ contract', (fixture) => {
  it('lets exactly one of 10 clients racing for 3 names (each listing them in its own order) hold at a time, without deadlock', async () => {
    const f = fixture();
    const names = ['m-a', 'm-b', 'm-c'];
    const orders = [names, [...names].reverse(), ['m-b', 'm-a', 'm-c'], ['m-c', 'm-a', 'm-b']];
    const clients = Array.from({ length: 10 }, () => f.client());
    let inside = 0;
    let overlaps = 0;
    let turns = 0;
    await Promise.all(
      clients.map(async (client, i) => {
        for (let round = 0; round < 3; round++) {
          await whileHolding(client, orders[i % orders.length]!, async (lease) => {
            if (++inside > 1) overlaps++;
            expect(lease.members.map((member) => member.name)).toEqual(names);
            expect(lease.held).toBe(true);
            await sleep(2);
            turns++;
            inside--;
          });
        }
      }),
    );
    expect({ turns, overlaps }).toEqual({ turns: 30, overlaps: 0 });
  });

  it('never deadlocks multi-locks whose names overlap in a circle', async () => {
    const f = fixture();
    const circle = [
      ['c-1', 'c-2'],
      ['c-2', 'c-3'],
      ['c-3', 'c-1'],
    ];
    const clients = Array.from({ length: 6 }, () => f.client());
    const done = await Promise.all(
      clients.map(async (client, i) => {
        for (let round = 0; round < 5; round++) await whileHolding(client, [...circle[i % 3]!].reverse(), () => sleep(1));
        return i;
      }),
    );
    expect(done).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('releases the members it holds when the whole cannot be had within waitMs', async () => {
    const f = fixture();
    const blocker = await f.client().acquire('p-c');
    const client = f.client();
    const started = performance.now();
    const error = await firstValueFrom(client.multiLock$(['p-a', 'p-b', 'p-c'], { waitMs: 200 })).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).lockName).toBe('p-c');
    expect((error as LockTimeoutError).waitMs).toBe(200);
    expect(await eventually(async () => !(await client.isLocked('p-a')) && !(await client.isLocked('p-b')))).toBe(true);
    // Nobody is kept out of the members it had.
    expect(await lastValueFrom(f.client().multiLock$(['p-a', 'p-b'], { waitMs: 0 }).pipe(take(1)))).toBeDefined();
    await blocker.release();
  });

  it('errors with LockLostError when any member is lost, and releases every other member', async () => {
    const f = fixture();
    // Renewals every 500 ms find l-b gone soon; a shorter lease risks l-a being lost first to a stall of a slow host.
    const client = f.client({ watchdogTimeoutMs: 1_500 });
    const outcome = firstValueFrom(client.multiLock$(['l-a', 'l-b', 'l-c']).pipe(switchMap(() => timer(5_000)))).catch((e: unknown) => e);
    expect(await eventually(async () => (await client.isLocked('l-a')) && (await client.isLocked('l-b')) && (await client.isLocked('l-c')))).toBe(true);
    expect(await client.forceUnlock('l-b')).toBe(true);
    const error = await outcome;
    expect(error).toBeInstanceOf(LockLostError);
    expect((error as LockLostError).lockName).toBe('l-b');
    expect(await eventually(async () => !(await client.isLocked('l-a')) && !(await client.isLocked('l-c')))).toBe(true);
  });

  it('gives every member the fixed lease from the moment all are held, however long a later member was awaited', async () => {
    const f = fixture();
    const blocker = await f.client().acquire('t-c');
    const client = f.client();
    const ttls = lastValueFrom(
      client.multiLock$(['t-a', 't-b', 't-c'], { leaseMs: 2_000 }).pipe(
        switchMap(() => Promise.all(['t-a', 't-b', 't-c'].map((name) => f.pttl(name)))),
        take(1),
      ),
    );
    // t-a and t-b are held while t-c is awaited for 600 ms: counted from their own grants they would have 1.4 s left
    expect(await eventually(async () => (await client.isLocked('t-a')) && (await client.isLocked('t-b')))).toBe(true);
    await sleep(600);
    await blocker.release();
    for (const ttl of await ttls) {
      expect(ttl).toBeGreaterThan(1_700);
      expect(ttl).toBeLessThanOrEqual(2_000);
    }
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('holds every member with one owner, counts duplicates once, and keeps lock$ holders of a member out', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'multi' });
    const other = f.client();
    await whileHolding(client, ['d-x', 'd-y', 'd-x'], async (lease) => {
      expect(lease.members.map((member) => member.name)).toEqual(['d-x', 'd-y']);
      expect(lease.name).toBe('d-x,d-y');
      expect(await f.hget('d-x', `multi:${lease.owner}`)).toBe('1');
      expect(await f.hget('d-y', `multi:${lease.owner}`)).toBe('1');
      await expect(firstValueFrom(other.lock$('d-y', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    });
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('rejects bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const bad: [unknown, unknown, ErrorConstructor][] = [
      ['a', undefined, TypeError],
      [[], undefined, RangeError],
      [['a', ''], undefined, TypeError],
      [['a', 7], undefined, TypeError],
      [['a'], { waitMs: -5 }, RangeError],
      [['a'], { colour: 'red' }, TypeError],
    ];
    for (const [names, options, type] of bad) {
      const error = await firstValueFrom(client.multiLock$(names as string[], options as never)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
    }
    expect(f.commands()).toBe(0);
  });
});
