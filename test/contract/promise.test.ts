import { filter } from 'rxjs';
import { expect, it } from 'vitest';
import { LockTimeoutError, LockLostError, type LockEvent } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { sleep } from '../support/leaks.js';

describeStores('promise API contract', (fixture) => {
  it('withLock returns the callback’s result after the release is confirmed', async () => {
    const f = fixture();
    const client = f.client();
    const result = await client.withLock('p', async (lease) => {
      expect(lease.held).toBe(true);
      expect(await client.isLocked('p')).toBe(true);
      return 42;
    });
    expect(result).toBe(42);
    expect(await client.isLocked('p')).toBe(false);
  });

  it('withLock rethrows the callback’s error after releasing', async () => {
    const f = fixture();
    const client = f.client();
    await expect(
      client.withLock('p', () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await client.isLocked('p')).toBe(false);
  });

  it('acquire returns a handle whose release is idempotent and works with await using', async () => {
    const f = fixture();
    const client = f.client();
    {
      await using handle = await client.acquire('h');
      expect(await client.isLocked('h')).toBe(true);
      expect(handle.held).toBe(true);
    }
    expect(await client.isLocked('h')).toBe(false);
    const handle = await client.acquire('h');
    await handle.release();
    await handle.release();
    expect(handle.held).toBe(false);
    expect(handle.signal.aborted).toBe(true);
  });

  it('an already aborted signal rejects with its reason without touching the store', async () => {
    const f = fixture();
    const client = f.client();
    const before = f.commands();
    const reason = new Error('not today');
    await expect(client.withLock('s', () => 1, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(client.acquire('s', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(f.commands()).toBe(before);
  });

  it('aborting while waiting rejects with the reason and leaves the queue', async () => {
    const f = fixture();
    const holder = f.client();
    const waiter = f.client();
    const handle = await holder.acquire('s');
    const controller = new AbortController();
    const waiting = waiter.acquire('s', { signal: controller.signal });
    await sleep(30);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    await handle.release();
    const next = await waiter.acquire('s', { waitMs: 1_000 });
    await next.release();
  });

  it('a nested withLock of the same name by the same task re-enters; independent tasks still exclude each other', async () => {
    const f = fixture();
    const client = f.client();
    const counts = await client.withLock('nest', async () => {
      const inner = await client.withLock('nest', async () => client.holdCount('nest'));
      const handle = await client.acquire('nest', { waitMs: 0 });
      const withHandle = await client.holdCount('nest');
      await handle.release();
      return [inner, withHandle];
    });
    expect(counts).toEqual([2, 2]);

    let inside = 0;
    let overlaps = 0;
    const task = () =>
      client.withLock('nest', async () => {
        if (++inside > 1) overlaps++;
        await sleep(10);
        inside--;
      });
    await Promise.all([task(), task(), task()]);
    expect(overlaps).toBe(0);
  });

  it('tasks a withLock callback started that run on after its hold ended acquire anew, and exclude each other', async () => {
    const f = fixture();
    const client = f.client();
    let inside = 0;
    let overlaps = 0;
    const critical = (): Promise<number> =>
      client.withLock('spawned', async () => {
        if (++inside > 1) overlaps++;
        await sleep(30);
        inside--;
        return client.holdCount('spawned');
      });
    let spawned: Promise<number[]> = Promise.resolve([]);
    await client.withLock('spawned', () => {
      spawned = sleep(20).then(() => Promise.all([critical(), critical()]));
    });
    expect(await spawned).toEqual([1, 1]);
    expect(overlaps).toBe(0);
  });

  it('refuses a withLock callback that is not a function with a TypeError naming withLock, sending nothing', async () => {
    const f = fixture();
    const client = f.client();
    const before = f.commands();
    const refused = await client.withLock('not-fn', 'work' as never).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError).message).toContain('withLock("not-fn"): fn must be a function');
    const badOptions = await client.withLock('not-fn', () => 1, { waitMs: -1 }).catch((e: unknown) => e);
    expect(badOptions).toBeInstanceOf(RangeError);
    expect((badOptions as RangeError).message).toContain('withLock("not-fn")');
    expect(f.commands()).toBe(before);
    expect(await f.keys()).toEqual([]);
  });

  it('a handle released after close() (which released it) resolves', async () => {
    const f = fixture();
    const client = f.client();
    const handle = await client.acquire('closing');
    await client.close();
    await expect(handle.release()).resolves.toBeUndefined();
    expect(await f.keys()).toEqual([]);
  });

  it('rejects an explicit release of a lock that is no longer held with LockLostError', async () => {
    const f = fixture();
    const client = f.client();
    const handle = await client.acquire('gone');
    await f.flush();
    await expect(handle.release()).rejects.toBeInstanceOf(LockLostError);
  });

  it('reports waiting, acquired, released and timeout on events$', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'evt' });
    const other = f.client();
    const events: LockEvent[] = [];
    const subscription = client.events$.pipe(filter((event: LockEvent) => event.type !== 'renewed')).subscribe((event) => events.push(event));
    const handle = await other.acquire('e');
    await expect(client.acquire('e', { waitMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
    await handle.release();
    await client.withLock('e', () => undefined);
    subscription.unsubscribe();
    // A newcomer may wait a moment for a hand-off reservation ("waiting") before it acquires.
    expect(events.map((event) => event.type).filter((type) => type !== 'waiting')).toEqual(['timeout', 'acquired', 'released']);
    expect(events[0]?.type).toBe('waiting');
    expect(events.every((event) => event.type !== 'warning' && event.name === 'e' && event.kind === 'lock')).toBe(true);
  });
});
