import { firstValueFrom, lastValueFrom, map, take } from 'rxjs';
import { expect, it } from 'vitest';
import type { Lease, LockClient } from '../../src/index.js';
import { describeStores, type StoreFixture } from '../support/fixtures.js';

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
});
