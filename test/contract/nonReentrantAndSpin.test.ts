import { firstValueFrom, type Observable, type Subscription } from 'rxjs';
import { expect, it } from 'vitest';
import { LockReentryError, LockTimeoutError, type Lease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

/** Subscribes; the first lease (or error) as a promise, and the subscription. */
function hold(lease$: Observable<Lease>): { lease: Promise<Lease>; subscription: Subscription } {
  let subscription!: Subscription;
  const lease = new Promise<Lease>((resolve, reject) => {
    subscription = lease$.subscribe({ next: resolve, error: reject });
  });
  return { lease, subscription };
}

describeStores('non-reentrant locks and the spin lock (Redisson 4.x; issue 39, items 1 and 2)', (fixture) => {
  for (const kind of ['lock$', 'fairLock$'] as const) {
    it(`${kind} with reentrant: false refuses its owner a second hold with LockReentryError, and changes nothing`, async () => {
      const f = fixture();
      const client = f.client();
      const first = hold(client[kind]('nr', { owner: 'job', reentrant: false }));
      await first.lease;
      const before = await f.hgetall('nr');
      await expect(firstValueFrom(client[kind]('nr', { owner: 'job', reentrant: false }))).rejects.toBeInstanceOf(LockReentryError);
      expect(await f.hgetall('nr')).toEqual(before);
      // One release frees it: there was one hold.
      first.subscription.unsubscribe();
      expect(await eventually(async () => !(await f.keys()).includes('nr'))).toBe(true);
      const other = f.client();
      await expect(firstValueFrom(other[kind]('nr', { waitMs: 0 }))).resolves.toBeDefined();
    });
  }

  it('withLock with reentrant: false: a nested acquisition of the same name fails at once instead of waiting for itself', async () => {
    const client = fixture().client();
    const error = await client
      .withLock('outer', () => client.withLock('outer', () => 'inner', { reentrant: false }), { reentrant: false })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(LockReentryError);
  });

  it('a reentrant lock$ still re-enters (the default)', async () => {
    const client = fixture().client();
    const result = await client.withLock('re', () => client.withLock('re', () => 'inner'));
    expect(result).toBe('inner');
  });

  it('a spin waiter and a lock$ holder exclude each other, both ways, with no pub/sub for the spin lock', async () => {
    const f = fixture();
    const [a, b] = [f.client(), f.client()];
    const held = await a.acquire('spin');
    await expect(firstValueFrom(b.spinLock$('spin', { waitMs: 50 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const spinning = hold(b.spinLock$('spin', { backOff: { initialMs: 5, maxMs: 20 } }));
    await sleep(60);
    expect(await f.channels()).toBe(0);
    await held.release();
    const lease = await spinning.lease;
    expect(lease.held).toBe(true);
    await expect(firstValueFrom(a.lock$('spin', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    spinning.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('a spin lock renews under the watchdog, fences, and refuses bad back-off settings with typed errors', async () => {
    const f = fixture();
    const client = f.client({ watchdogTimeoutMs: 300 });
    const first = hold(client.spinLock$('s2', { fencing: true }));
    const lease = await first.lease;
    expect(lease.token).toBe(1);
    await sleep(700);
    expect(lease.held).toBe(true);
    first.subscription.unsubscribe();
    await expect(firstValueFrom(client.spinLock$('s2', { backOff: { initialMs: 0 } }))).rejects.toBeInstanceOf(RangeError);
    await expect(firstValueFrom(client.spinLock$('s2', { backOff: { maxMs: 1, initialMs: 5 } }))).rejects.toBeInstanceOf(RangeError);
    await expect(firstValueFrom(client.spinLock$('s2', { backOff: { jitter: 'yes' as never } }))).rejects.toBeInstanceOf(TypeError);
    await expect(firstValueFrom(client.spinLock$('s2', { backOff: { spin: 1 } as never }))).rejects.toBeInstanceOf(TypeError);
    expect(await eventually(async () => (await f.keys()).filter((key) => !key.startsWith('redisson_lock_token')).length === 0)).toBe(true);
    await f.flush();
  });
});
