import { filter, firstValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { ClientClosedError, LockLostError } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { activeTimers, eventually } from '../support/leaks.js';

describeStores('close() contract', (fixture) => {
  it('releases every lease, errors held streams and pending waits, and refuses later calls', async () => {
    const f = fixture();
    const client = f.client();
    const blocker = f.client();
    const errors: unknown[] = [];
    client.lock$('held-1').subscribe({ error: (e: unknown) => errors.push(e) });
    client.lock$('held-2', { owner: 'job' }).subscribe({ error: (e: unknown) => errors.push(e) });
    const handle = await blocker.acquire('blocked');
    client.lock$('blocked').subscribe({ error: (e: unknown) => errors.push(e) });
    expect(await eventually(async () => (await client.isLocked('held-1')) && (await client.isLocked('held-2')))).toBe(true);

    await client.close();
    expect(await blocker.isLocked('held-1')).toBe(false);
    expect(await blocker.isLocked('held-2')).toBe(false);
    expect(errors).toHaveLength(3);
    expect(errors.filter((e) => e instanceof LockLostError && e.reason === 'closed')).toHaveLength(2);
    expect(errors.filter((e) => e instanceof ClientClosedError)).toHaveLength(1);

    await expect(firstValueFrom(client.lock$('after'))).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.withLock('after', () => 1)).rejects.toBeInstanceOf(ClientClosedError);
    await expect(client.isLocked('after')).rejects.toBeInstanceOf(ClientClosedError);
    await client.close();
    await handle.release();
  });

  it('rejects acquire() and withLock() still waiting with ClientClosedError, takes them out of the queue and stops their timers', async () => {
    const f = fixture();
    const client = f.client();
    const blocker = f.client();
    const handle = await blocker.acquire('queued');
    const timersBefore = activeTimers();
    const waiting = firstValueFrom(client.events$.pipe(filter((event) => event.type === 'waiting')));
    const acquiring = client.acquire('queued').catch((error: unknown) => error);
    const working = client.withLock('queued', () => 'ran', { waitMs: 60_000 }).catch((error: unknown) => error);
    await waiting;
    expect(await eventually(async () => (await f.keys()).includes('rxlock_waiters:{queued}'))).toBe(true);

    await client.close();
    expect(await acquiring).toBeInstanceOf(ClientClosedError);
    expect(await working).toBeInstanceOf(ClientClosedError);
    // Nobody is left in the queue for the lock to be handed to, and the waits' retry and deadline timers are gone.
    expect((await f.keys()).sort()).toEqual(['queued']);
    expect(await eventually(() => activeTimers() <= timersBefore)).toBe(true);
    await handle.release();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('releases leases under the watchdog, with a fixed lease, and a multi-lock fixed once every member was held', async () => {
    const f = fixture();
    const client = f.client();
    const observer = f.client();
    const errors: unknown[] = [];
    const leases: string[] = [];
    const hold = (lease$: ReturnType<typeof client.lock$>, label: string): void => {
      lease$.subscribe({ next: () => leases.push(label), error: (e: unknown) => errors.push(e) });
    };
    hold(client.lock$('watchdog'), 'watchdog');
    hold(client.fairLock$('fair-watchdog'), 'fair-watchdog');
    hold(client.lock$('fixed', { leaseMs: 60_000 }), 'fixed');
    // Held under the watchdog while acquired, then taken off it and set to the fixed lease.
    hold(client.multiLock$(['multi-a', 'multi-b'], { leaseMs: 60_000 }), 'multi');
    const names = ['watchdog', 'fair-watchdog', 'fixed', 'multi-a', 'multi-b'];
    expect(await eventually(() => leases.length === 4)).toBe(true);
    for (const name of names) expect(await observer.isLocked(name)).toBe(true);

    await client.close();
    for (const name of names) expect({ name, locked: await observer.isLocked(name) }).toEqual({ name, locked: false });
    expect(errors).toHaveLength(4);
    expect(errors.every((e) => e instanceof LockLostError && e.reason === 'closed')).toBe(true);
  });
});
