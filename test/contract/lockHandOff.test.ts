import type { Subscription } from 'rxjs';
import { expect, it } from 'vitest';
import { LockLostError, type Lease, type LockClient, type LeaseHandle, type LockOptions } from '../../src/index.js';
import { HANDED_OVER } from '../../src/primitives/handedOver.js';
import { lockKeys } from '../../src/primitives/lock/lockKeys.js';
import { lockAcquireScript } from '../../src/primitives/lock/acquireScript.js';
import { fairLockAcquireScript } from '../../src/primitives/fairLock/acquireScript.js';
import { fairArgv } from '../../src/primitives/fairLock/fairQueue.js';
import { fairLockKeys } from '../../src/primitives/fairLock/fairLockKeys.js';
import { fairLockReleaseScript } from '../../src/primitives/fairLock/releaseScript.js';
import { lockReleaseScript } from '../../src/primitives/lock/releaseScript.js';
import { describeStores, type ClientSettings, type StoreFixture } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';

/** A lease promise for a subscription kept open (the hold lasts until `subscription.unsubscribe()`). */
function hold(client: LockClient, name: string, options?: Parameters<LockClient['lock$']>[1]): { lease: Promise<Lease>; subscription: Subscription } {
  let resolve!: (lease: Lease) => void;
  let reject!: (error: unknown) => void;
  const lease = new Promise<Lease>((res, rej) => ((resolve = res), (reject = rej)));
  const subscription = client.lock$(name, options).subscribe({ next: resolve, error: reject });
  return { lease, subscription };
}

/** Waits until at least `channels` channels are subscribed and the waiters' first attempts (on subscribing) are answered. */
async function settled(f: StoreFixture, channels: number): Promise<void> {
  expect(await eventually(async () => (await f.channels()) >= channels)).toBe(true);
  let before = -1;
  while (before !== f.commands()) {
    before = f.commands();
    await sleep(50);
  }
}

const waiters = (name: string): string => `rxlock_waiters:{${name}}`;

/** How a waiter of this store's clients is listed (`waiterMember`): with `d` where releases hand over directly. */
const member = (f: StoreFixture, field: string, flags = ''): string => {
  const all = `${flags}${f.directHandOff ? 'd' : ''}`;
  return `${field} 30000 ${all === '' ? '-' : all} -`;
};

/** Channels a client waiting on one name subscribes: Redisson's, and its hand-off channel where there is one. */
const channelsPerWaiter = (f: StoreFixture): number => (f.directHandOff ? 2 : 1);

/**
 * A holder of `name` (its client made with `holderSettings`) and one waiter on another client, once that
 * waiter is queued and listens on Redisson's channel and, where releases hand over directly, its hand-off channel.
 */
async function heldAndAwaited(
  f: StoreFixture,
  name: string,
  options: { holderSettings?: ClientSettings; held?: LockOptions; waiter?: LockOptions } = {},
): Promise<{ holder: LockClient; held: LeaseHandle; waiterClient: LockClient; waiter: ReturnType<typeof hold> }> {
  const holder = f.client(options.holderSettings);
  const waiterClient = f.client();
  const held = await holder.acquire(name, options.held);
  const waiter = hold(waiterClient, name, options.waiter);
  await settled(f, channelsPerWaiter(f));
  return { holder, held, waiterClient, waiter };
}

describeStores('lock$ hand-off', (fixture) => {
  it('hands the lock to the waiter inside the release: the waiter holds it without a command of its own', async () => {
    const f = fixture();
    // The waiter listens on Redisson's channel and on its client's hand-off channel.
    const { held, waiterClient, waiter } = await heldAndAwaited(f, 'h');
    const before = f.commands();
    await held.release();
    const lease = await waiter.lease;
    // Where a release cannot see who listens (a cluster with classic pub/sub), it reserves the lock and the waiter takes it.
    expect(f.commands() - before).toBe(f.directHandOff ? 1 : 2);
    expect(await f.hget('h', `${waiterClient.clientId}:${lease.owner}`)).toBe('1');
    expect(await f.get('rxlock_handoff:{h}')).toBeNull();
    if (f.directHandOff) {
      // Handed over, the lock lasts the confirmation window (ten hand-off windows) until its new holder renews
      // it a hand-off window later (test/handOffToStalledWaiter.test.ts shows the window at work).
      expect(await eventually(async () => (await f.pttl('h')) > 25_000)).toBe(true);
      // The holder learns of its confirmed lease when the renewal's reply arrives.
      expect(await eventually(() => Promise.resolve(lease.deadline - lease.acquiredAt > 25_000))).toBe(true);
    } else {
      expect(await f.pttl('h')).toBeGreaterThan(25_000);
    }
    waiter.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('answers HANDED_OVER to the release that gave the lock straight to the waiter, and 2 to one nobody waited for', async () => {
    const f = fixture();
    const { held, waiter } = await heldAndAwaited(f, 'answer');
    await held.release();
    await waiter.lease;
    waiter.subscription.unsubscribe();
    expect(await eventually(() => Promise.resolve(f.replies('lock.release').length === 2))).toBe(true);
    // Where a release only reserves the lock (a cluster with classic pub/sub), the waiter takes it itself.
    expect(f.replies('lock.release')).toEqual([f.directHandOff ? HANDED_OVER : 2, 2]);
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('hands over a fencing token and a reentrant owner’s hold, which re-enters and releases as any other', async () => {
    const f = fixture();
    const { held, waiterClient, waiter } = await heldAndAwaited(f, 'ft', { held: { fencing: true }, waiter: { fencing: true, owner: 'job' } });
    await held.release();
    const lease = await waiter.lease;
    expect([held.token, lease.token]).toEqual([1, 2]);
    const again = hold(waiterClient, 'ft', { owner: 'job' });
    await again.lease;
    expect(await waiterClient.holdCount('ft', 'job')).toBe(2);
    waiter.subscription.unsubscribe();
    expect(await eventually(async () => (await waiterClient.holdCount('ft', 'job')) === 1)).toBe(true);
    again.subscription.unsubscribe();
    expect(await eventually(async () => !(await waiterClient.isLocked('ft')))).toBe(true);
    expect((await f.keys()).filter((key) => !key.startsWith('redisson_lock_token:'))).toEqual([]);
    await f.flush();
  });

  it('passes over a queued waiter whose client stopped listening long ago, and hands the lock to the next', async () => {
    const f = fixture();
    const { held, waiterClient, waiter } = await heldAndAwaited(f, 'gone');
    // A waiter of a client that died a minute ago, ahead of the live one.
    const ghost = 'dead-client:#1 30000 d -';
    await f.zadd(waiters('gone'), ((await f.serverTime()) - 60_000) * 1000, ghost);
    const before = f.commands();
    await held.release();
    const lease = await waiter.lease;
    expect(f.commands() - before).toBe(f.directHandOff ? 1 : 2);
    expect(await f.zscore(waiters('gone'), ghost)).toBeNull();
    expect(await f.hget('gone', `${waiterClient.clientId}:${lease.owner}`)).toBe('1');
    waiter.subscription.unsubscribe();
  });

  it('drops at most 17 gone waiters in one unlock and keeps the ones behind them in line', async () => {
    const f = fixture();
    const holder = f.client();
    const held = await holder.acquire('crowd');
    const longAgo = ((await f.serverTime()) - 60_000) * 1000;
    const gone = Array.from({ length: 19 }, (_, i) => `dead-client-${String(i)}:#1 30000 d -`);
    for (const [i, ghost] of gone.entries()) await f.zadd(waiters('crowd'), longAgo + i, ghost);
    await held.release();
    expect(await holder.isLocked('crowd')).toBe(false);
    const left = await Promise.all(gone.map((ghost) => f.zscore(waiters('crowd'), ghost)));
    expect(left.map((score) => score !== null)).toEqual([...Array<boolean>(17).fill(false), true, true]);
    await f.flush();
  });

  it('reserves the lock for a waiter that joined a moment ago and does not listen yet, and lets the next in once the reservation lapses', async () => {
    const f = fixture();
    const { held, waiterClient, waiter, holder } = await heldAndAwaited(f, 'new', { holderSettings: { watchdogTimeoutMs: 1_000 } });
    // Just ahead of the live waiter (whose owner is its client's first, #1): a waiter whose client is still subscribing.
    const liveJoined = await f.zscore(waiters('new'), member(f, `${waiterClient.clientId}:#1`));
    expect(liveJoined).not.toBeNull();
    const justJoined = 'new-client:#1 30000 d -';
    await f.zadd(waiters('new'), (liveJoined ?? 0) - 1, justJoined);
    await held.release();
    expect((await f.get('rxlock_handoff:{new}'))?.startsWith(`${justJoined}|`)).toBe(true);
    // Still first in line, at the place it had.
    expect(await f.zscore(waiters('new'), justJoined)).toBe((liveJoined ?? 0) - 1);
    expect(await holder.isLocked('new')).toBe(false);
    // The live waiter tries when the holder's TTL would have run out (at most 1 s) and takes the lapsed reservation.
    const lease = await waiter.lease;
    expect(await f.hget('new', `${waiterClient.clientId}:${lease.owner}`)).toBe('1');
    waiter.subscription.unsubscribe();
    // The made-up waiter may still be listed (it never leaves); nothing else is left.
    expect(await eventually(async () => (await f.keys()).every((key) => key === waiters('new')))).toBe(true);
    await f.flush();
  });

  it('gives back a hand-off that reaches a client whose waiter is gone, which hands the lock on to the next', async () => {
    const f = fixture();
    const { held, waiterClient, waiter } = await heldAndAwaited(f, 'back');
    // A waiter of the same client that left while its leave was lost, ahead of the live one. Where releases hand
    // over directly its client listens, so it is handed the lock; elsewhere it looks gone and is passed over.
    const left = `${waiterClient.clientId}:#left 30000 d -`;
    await f.zadd(waiters('back'), 1, left);
    const before = f.commands();
    await held.release();
    const lease = await waiter.lease;
    // The holder's release, then the client's give-back (which handed the lock to the live waiter), or the live waiter's attempt.
    expect(f.commands() - before).toBe(2);
    expect(await f.zscore(waiters('back'), left)).toBeNull();
    expect(await f.hget('back', `${waiterClient.clientId}:#left`)).toBeNull();
    expect(await f.hget('back', `${waiterClient.clientId}:${lease.owner}`)).toBe('1');
    waiter.subscription.unsubscribe();
  });

  it('hands the lock on from a forced unlock as from a release', async () => {
    const f = fixture();
    const { holder, held, waiterClient, waiter } = await heldAndAwaited(f, 'forced');
    const before = f.commands();
    expect(await holder.forceUnlock('forced')).toBe(true);
    const lease = await waiter.lease;
    expect(f.commands() - before).toBe(f.directHandOff ? 1 : 2);
    expect(await f.hget('forced', `${waiterClient.clientId}:${lease.owner}`)).toBe('1');
    await expect(held.release()).rejects.toBeInstanceOf(LockLostError);
    waiter.subscription.unsubscribe();
  });

  it('takes a waiter that gives up out of the queue, and the release hands over to the one behind it', async () => {
    const f = fixture();
    const holder = f.client();
    const [first, second] = [f.client(), f.client()];
    const held = await holder.acquire('quit');
    const quitter = hold(first, 'quit');
    quitter.lease.catch(() => undefined);
    await settled(f, channelsPerWaiter(f));
    const stayer = hold(second, 'quit');
    // Redisson's channel (counted once on Redis) and each client's hand-off channel.
    await settled(f, channelsPerWaiter(f) + (f.directHandOff ? 1 : 0));
    quitter.subscription.unsubscribe();
    expect(await eventually(async () => (await f.zscore(waiters('quit'), member(f, `${first.clientId}:#1`))) === null)).toBe(true);
    await held.release();
    const lease = await stayer.lease;
    expect(await f.hget('quit', `${second.clientId}:${lease.owner}`)).toBe('1');
    stayer.subscription.unsubscribe();
  });

  it('a release that reserves the lock for its only waiter leaves the waiters key the reservation’s life, as Redis does', async () => {
    const f = fixture();
    const keys = lockKeys('sole');
    await f.setHash('sole', 'c1:o1', '1', 30_000);
    // Not listening for direct hand-offs (no `d`): the release reserves the lock for it instead.
    await f.zadd(keys.waiters, (await f.serverTime()) * 1000, 'c2:o2 30000 - -', 60_000);
    await f.run(lockReleaseScript, keys.releaseKeys, ['c1:o1', 1_000, 'publish']);
    expect(await f.get(keys.handoff)).toMatch(/^c2:o2 30000 - -\|\d+$/);
    // On Redis the head is popped and put back, and the key it recreates gets 2 × handoffMs + 5 s.
    const ttl = await f.pttl(keys.waiters);
    expect(ttl).toBeGreaterThan(6_000);
    expect(ttl).toBeLessThanOrEqual(7_000);
    await f.flush();
  });

  // A release hands the lock and the waiter's hold id over for the hand-off window only. When the waiter's own
  // attempt reaches Redis before the hand-off's message reaches its client, that attempt is answered "granted",
  // and the holder counts a whole lease from it: the hold id must last as long, or the release at the end of a
  // hold longer than the window finds it gone, answers "not held", and leaves the lock held for a whole lease.
  it('a waiter granted by its own attempt after a hand-off keeps its hold id the whole lease, and its release after the window unlocks', async () => {
    const f = fixture();
    const keys = lockKeys('again');
    await f.setHash(keys.lock, 'c2:o2', '1', 50);
    await f.setHash(keys.holds, 'h2', '1', 50);
    expect(await f.run(lockAcquireScript, [keys.lock, keys.waiters, keys.handoff, keys.holds], [30_000, 'c2:o2', 'wait+d', 100, 'h2'])).toEqual({
      granted: true,
      grant: -1,
    });
    expect(await f.pttl(keys.holds)).toBeGreaterThan(29_000);
    await sleep(100);
    expect(await f.run(lockReleaseScript, keys.releaseKeys, ['c2:o2', 100, 'publish', 'h2'])).toBe(2);
    expect(await f.keys()).toEqual([]);
  });

  it('the same holds for a fair lock: its owner granted again after a hand-off keeps its hold id the whole lease', async () => {
    const f = fixture();
    const keys = fairLockKeys('again-fair');
    await f.setHash(keys.lock, 'c2:o2', '1', 50);
    await f.setHash(keys.holds, 'h2', '1', 50);
    const argv = fairArgv({
      leaseMs: 30_000,
      field: 'c2:o2',
      holdId: 'h2',
      waitId: 'w2',
      fencing: false,
      enqueue: true,
      waiterTimeoutMs: 10_000,
      publishCommand: 'publish',
      channelPrefix: keys.channelPrefix,
      direct: true,
      confirmMs: 1_000,
    });
    expect(await f.run(fairLockAcquireScript, keys.list, argv)).toEqual({ granted: true, grant: -1 });
    expect(await f.pttl(keys.holds)).toBeGreaterThan(29_000);
    await sleep(100);
    expect(await f.run(fairLockReleaseScript, keys.list, argv)).toBe('released');
    expect(await f.keys()).toEqual([]);
  });
});
