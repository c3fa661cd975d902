import { filter, firstValueFrom, lastValueFrom, map, take, type Subscription } from 'rxjs';
import { expect, it } from 'vitest';
import { LockBackendError, LockKeyTypeError, type Lease, type LockClient, type LockEvent } from '../../src/index.js';
import { describeStores, type StoreFixture } from '../support/fixtures.js';
import { eventually } from '../support/leaks.js';

const TOKEN = (name: string): string => `redisson_lock_token:{${name}}`;

/** One grant of `name` with `fencing: true` through lock$, fairLock$ or the promise API, released at once; its token. */
async function tokenOf(client: LockClient, kind: 'lock$' | 'fairLock$' | 'withLock', name: string): Promise<number | undefined> {
  if (kind === 'withLock') return client.withLock(name, (lease) => lease.token, { fencing: true });
  const lock$ = kind === 'lock$' ? client.lock$(name, { fencing: true }) : client.fairLock$(name, { fencing: true });
  return lastValueFrom(
    lock$.pipe(
      take(1),
      map((lease: Lease) => lease.token),
    ),
  );
}

describeStores('fencing tokens', (fixture) => {
  const fresh = (f: StoreFixture, count: number, settings: Parameters<StoreFixture['client']>[0] = {}): LockClient[] =>
    Array.from({ length: count }, () => f.client(settings));

  it('gives tokens 1, 2, 3 … across five acquisitions by different clients, through every entry point', async () => {
    const f = fixture();
    const clients = fresh(f, 5);
    const kinds = ['lock$', 'fairLock$', 'withLock', 'lock$', 'fairLock$'] as const;
    const tokens: (number | undefined)[] = [];
    for (const [i, client] of clients.entries()) tokens.push(await tokenOf(client, kinds[i]!, 'fenced'));
    expect(tokens).toEqual([1, 2, 3, 4, 5]);
    expect(await f.get(TOKEN('fenced'))).toBe('5');
    await f.flush();
  });

  it('keeps growing after every client closed and new ones (even with the same client ids) started', async () => {
    const f = fixture();
    const first = [f.client({ clientId: 'svc-a' }), f.client({ clientId: 'svc-b' })];
    const before = [await tokenOf(first[0]!, 'lock$', 'restarts'), await tokenOf(first[1]!, 'fairLock$', 'restarts')];
    await Promise.all(first.map((client) => client.close()));
    // The counter has no TTL: it is what outlives the clients.
    expect(await f.pttl(TOKEN('restarts'))).toBe(-1);
    const second = [f.client({ clientId: 'svc-a' }), f.client({ clientId: 'svc-b' }), f.client()];
    const after = [
      await tokenOf(second[0]!, 'fairLock$', 'restarts'),
      await tokenOf(second[1]!, 'lock$', 'restarts'),
      await tokenOf(second[2]!, 'withLock', 'restarts'),
    ];
    expect([...before, ...after]).toEqual([1, 2, 3, 4, 5]);
    await f.flush();
  });

  it('continues from Redisson’s counter (RFencedLock’s redisson_lock_token key)', async () => {
    const f = fixture();
    await f.setString(TOKEN('shared'), '41');
    expect(await tokenOf(f.client(), 'lock$', 'shared')).toBe(42);
    expect(await tokenOf(f.client(), 'fairLock$', 'shared')).toBe(43);
    await f.flush();
  });

  it('gives every grant of a reentrant owner a larger token, and a lease without fencing none', async () => {
    const f = fixture();
    const client = f.client();
    const outer = await firstValueFrom(client.lock$('nested', { owner: 'job', fencing: true }).pipe(map((lease) => lease.token)));
    expect(outer).toBe(1);
    const handle = await client.acquire('nested', { owner: 'job', fencing: true });
    const inner = await client.acquire('nested', { owner: 'job', fencing: true });
    expect([handle.token, inner.token]).toEqual([2, 3]);
    await inner.release();
    await handle.release();
    expect(await client.withLock('nested', (lease) => lease.token)).toBeUndefined();
    expect(await tokenOf(client, 'lock$', 'nested')).toBe(4);
    await f.flush();
  });

  for (const kind of ['lock$', 'fairLock$'] as const) {
    it(`grows in the order of the grants while contending clients take turns (${kind})`, async () => {
      const f = fixture();
      const clients = fresh(f, 4);
      const seen: number[] = [];
      await Promise.all(
        clients.map(async (client) => {
          for (let round = 0; round < 5; round++) seen.push((await tokenOf(client, kind, 'busy'))!);
        }),
      );
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      await f.flush();
    });
  }

  /** A counter Redis cannot count: a list (another type) or a string that is not a number, and what each must raise. */
  const BAD_COUNTERS = [
    { label: 'a list', set: (f: StoreFixture, key: string) => f.setList(key, ['x']), expected: LockKeyTypeError },
    { label: 'a string that is not a number', set: (f: StoreFixture, key: string) => f.setString(key, 'abc'), expected: LockBackendError },
  ] as const;

  for (const kind of ['lock$', 'fairLock$'] as const) {
    it(`refuses a grant whose token counter is not a number, naming the key of another type, and leaves no lock behind (${kind})`, async () => {
      const f = fixture();
      const client = f.client();
      for (const [i, bad] of BAD_COUNTERS.entries()) {
        const name = `bad-counter-${String(i)}`;
        await bad.set(f, TOKEN(name));
        const error = await tokenOf(client, kind, name).catch((e: unknown) => e);
        expect(error, bad.label).toBeInstanceOf(bad.expected);
        expect((error as Error).message).toContain(name);
        if (error instanceof LockKeyTypeError) expect([error.key, error.actualType]).toEqual([TOKEN(name), 'list']);
      }
      expect(await f.keys()).toEqual([TOKEN('bad-counter-0'), TOKEN('bad-counter-1')]);
      expect(await f.lrange(TOKEN('bad-counter-0'))).toEqual(['x']);
      expect(await f.get(TOKEN('bad-counter-1'))).toBe('abc');
      await f.flush();
    });

    it(`still releases when a fencing waiter's counter is bad: the waiter hears the error, and nothing is left (${kind})`, async () => {
      const f = fixture();
      for (const [i, bad] of BAD_COUNTERS.entries()) {
        const name = `bad-hand-off-${String(i)}`;
        const [holder, waiter] = [f.client(), f.client()];
        const lock$ = (client: LockClient, fencing: boolean) => (kind === 'lock$' ? client.lock$(name, { fencing }) : client.fairLock$(name, { fencing }));
        const failures: LockEvent[] = [];
        holder.events$.pipe(filter((event) => event.type === 'release-failed')).subscribe((event) => failures.push(event));
        let holding: Subscription | undefined;
        await new Promise<void>((resolve) => (holding = lock$(holder, false).subscribe({ next: () => resolve(), error: () => undefined })));
        await bad.set(f, TOKEN(name));
        const queued = firstValueFrom(waiter.events$.pipe(filter((event) => event.type === 'waiting')));
        const outcome = firstValueFrom(lock$(waiter, true)).catch((e: unknown) => e);
        await queued;
        // Released once the waiter listens (its Redisson channel, and for lock$ its hand-off channel), where a
        // release can see that and hand over directly.
        if (f.directHandOff) expect(await eventually(async () => (await f.channels()) >= (kind === 'lock$' ? 2 : 1))).toBe(true);
        holding?.unsubscribe();
        // Before, the release failed half done, and the waiter heard nothing until its fallback (the holder's TTL).
        let heard: unknown = 'nothing';
        void outcome.then((value) => (heard = value));
        expect(await eventually(() => heard !== 'nothing')).toBe(true);
        expect(heard, bad.label).toBeInstanceOf(bad.expected);
        expect(failures).toEqual([]);
        expect(await eventually(async () => (await f.keys()).join() === TOKEN(name))).toBe(true);
        await Promise.all([holder.close(), waiter.close()]);
        await f.flush();
      }
    });
  }
});
