import { firstValueFrom, type Observable } from 'rxjs';
import { expect, it } from 'vitest';
import { acquireLease, LockTimeoutError, withLease, type Lease, type LockClient } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

type Wait = { readonly waitMs?: number };

/** Every lease stream, by what a user calls, each on its own names (set up first where it needs permits). */
const STREAMS: readonly [string, (client: LockClient, wait?: Wait) => Promise<Observable<Lease>>][] = [
  ['fairLock$', (client, wait) => Promise.resolve(client.fairLock$('fair', wait))],
  ['readLock$', (client, wait) => Promise.resolve(client.readLock$('rw', wait))],
  ['writeLock$', (client, wait) => Promise.resolve(client.writeLock$('rw', wait))],
  ['multiLock$', (client, wait) => Promise.resolve(client.multiLock$(['m1', 'm2'], wait))],
  [
    'semaphore(…).acquire$',
    async (client, wait) => {
      await client.semaphore('sem').trySetPermits(1);
      return client.semaphore('sem').acquire$(1, wait);
    },
  ],
  [
    'leasedSemaphore(…).acquire$',
    async (client, wait) => {
      await client.leasedSemaphore('leased').trySetPermits(1);
      return client.leasedSemaphore('leased').acquire$(1, wait);
    },
  ],
];

/** Deletes the semaphores' counts, which outlive their holds by design. */
async function tidy(client: LockClient): Promise<void> {
  await client.semaphore('sem').delete();
  await client.leasedSemaphore('leased').delete();
}

describeStores('the promise forms of every lease stream (issue 37, item 5)', (fixture) => {
  for (const [name, stream] of STREAMS) {
    it(`withLease over ${name}: runs fn while held, resolves with its result after the release`, async () => {
      const f = fixture();
      const [client, other] = [f.client(), f.client()];
      let heldInside = false;
      const result = await withLease(await stream(client), (lease) => {
        heldInside = lease.held;
        return 'done';
      });
      expect(result).toBe('done');
      expect(heldInside).toBe(true);
      // Released: another client has it at once.
      const again = await acquireLease(await stream(other, { waitMs: 0 }));
      expect(again.held).toBe(true);
      await again.release();
      await tidy(client);
    });

    it(`acquireLease over ${name}: a handle with the lease's fields, released by await using`, async () => {
      const f = fixture();
      const [client, other] = [f.client(), f.client()];
      let seen: Lease | undefined;
      {
        await using handle = await acquireLease(await stream(client));
        expect(handle.held).toBe(true);
        expect(typeof handle.name).toBe('string');
        expect(handle.signal.aborted).toBe(false);
        seen = handle;
      }
      expect(seen.held).toBe(false);
      expect(seen.signal.aborted).toBe(true);
      await (await acquireLease(await stream(other, { waitMs: 0 }))).release();
      await tidy(client);
    });
  }

  it('acquireLease: an aborted signal ends the wait with its reason, and nothing stays held', async () => {
    const f = fixture();
    const [holder, waiter] = [f.client(), f.client()];
    const held = await acquireLease(holder.fairLock$('busy'));
    const controller = new AbortController();
    const reason = new Error('gave up');
    const waiting = acquireLease(waiter.fairLock$('busy'), { signal: controller.signal });
    await sleep(50);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await held.release();
    await expect(firstValueFrom(waiter.fairLock$('busy', { waitMs: 0 }))).resolves.toBeDefined();
  });

  it('withLease rejects with the stream’s error when the lease cannot be had', async () => {
    const f = fixture();
    const [holder, other] = [f.client(), f.client()];
    const held = await acquireLease(holder.writeLock$('taken'));
    await expect(withLease(other.writeLock$('taken', { waitMs: 0 }), () => 'never')).rejects.toBeInstanceOf(LockTimeoutError);
    await held.release();
  });

  it('acquireLease and withLease refuse what is not a lease stream with a TypeError', async () => {
    await expect(acquireLease(42 as never)).rejects.toBeInstanceOf(TypeError);
    const client = fixture().client();
    await expect(withLease(client.lock$('x'), 'no function' as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('watchdogTimeoutMs per call: the key lasts that long between renewals, and the hold outlives it', async () => {
    const f = fixture();
    const client = f.client();
    const handle = await client.acquire('short', { watchdogTimeoutMs: 300 });
    expect(await f.pttl('short')).toBeLessThanOrEqual(300);
    await sleep(700);
    expect(handle.held).toBe(true);
    expect(await f.pttl('short')).toBeLessThanOrEqual(300);
    const other = await acquireLease(client.fairLock$('long'));
    expect(await f.pttl('long')).toBeGreaterThan(25_000);
    await Promise.all([handle.release(), other.release()]);
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('watchdogTimeoutMs per call is checked as the client option is, and refused beside leaseMs', async () => {
    const client = fixture().client();
    await expect(firstValueFrom(client.lock$('x', { watchdogTimeoutMs: 5 }))).rejects.toBeInstanceOf(RangeError);
    await expect(firstValueFrom(client.lock$('x', { watchdogTimeoutMs: 1_000, leaseMs: 1_000 }))).rejects.toBeInstanceOf(TypeError);
    await expect(firstValueFrom(client.fairLock$('x', { watchdogTimeoutMs: 'soon' as never }))).rejects.toBeInstanceOf(TypeError);
  });
});
