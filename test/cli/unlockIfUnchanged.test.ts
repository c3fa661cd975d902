import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/CliError.js';
import { connect } from '../../src/cli/connection/connect.js';
import type { Connection } from '../../src/cli/connection/Connection.js';
import { requireObject } from '../../src/cli/commands/requireObject.js';
import { planForceUnlock } from '../../src/cli/unlock/forceUnlock.js';
import { unlockIfUnchanged } from '../../src/cli/unlock/unlockIfUnchanged.js';
import { createLockClient, type Lease, type LockClient } from '../../src/index.js';
import { eventually } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';

/**
 * The confirmed force-unlock in-process, where a test can act between the CLI's second read and its unlock:
 * the window that `unlock --force` leaves after the operator answers.
 */
describe('a confirmed force-unlock is one transaction with its second read', () => {
  const server = redisServerForSuite();
  let connection: Connection | undefined;
  let clients: LockClient[] = [];
  let holds: Subscription[] = [];

  afterEach(async () => {
    for (const hold of holds) hold.unsubscribe();
    holds = [];
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
    await connection?.close();
    connection = undefined;
    await server.client().flushall();
  });

  const setUp = async () => {
    connection = await connect({ url: server.url });
    const holder = createLockClient({ redis: server.client(), clientId: 'holder' });
    const waiter = createLockClient({ redis: server.client(), clientId: 'waiter' });
    clients = [holder, waiter];
    return { connection, holder, waiter };
  };
  const hold = (lease$: { subscribe(observer: { next(lease: Lease): void; error(): void }): Subscription }): Promise<Lease> =>
    new Promise((resolve) => holds.push(lease$.subscribe({ next: resolve, error: () => undefined })));

  it('leaves alone a lock that changed hands after the second read, and says so', async () => {
    const { connection, holder, waiter } = await setUp();
    const stuck = holder.lock$('raced', { owner: 'stuck' }).subscribe({ error: () => undefined });
    await eventually(async () => (await server.client().hget('raced', 'holder:stuck')) === '1');
    const plan = planForceUnlock(await requireObject(connection, 'raced'));

    const unlocking = unlockIfUnchanged(connection, 'raced', plan, async () => {
      expect((await requireObject(connection, 'raced')).holders.map((holder) => holder.id)).toEqual(['holder:stuck']);
      // Right after that read, the holder goes and a waiter takes the lock.
      stuck.unsubscribe();
      await hold(waiter.lock$('raced', { owner: 'next' }));
    });

    await expect(unlocking).rejects.toThrow(new CliError('"raced" changed while you were asked; nothing changed, run the command again'));
    expect(await server.client().hgetall('raced')).toEqual({ 'waiter:next': '1' });
  });

  it('unlocks what the second read found unchanged, and wakes a waiter', async () => {
    const { connection, holder, waiter } = await setUp();
    await hold(holder.lock$('steady', { owner: 'stuck' }));
    const granted = hold(waiter.lock$('steady', { owner: 'next' }));
    await eventually(async () => (await server.client().zcard('rxlock_waiters:{steady}')) === 1);
    const plan = planForceUnlock(await requireObject(connection, 'steady'));

    const said = await unlockIfUnchanged(connection, 'steady', plan, async () => {
      await requireObject(connection, 'steady');
    });

    expect(said).toBe('unlocked "steady" (was held by holder:stuck ×1)');
    expect((await granted).owner).toBe('next');
    expect(await server.client().hgetall('steady')).toEqual({ 'waiter:next': '1' });
  });

  it('a fair lock whose line changes meanwhile is still unlocked: the prompt named its holder, not its line', async () => {
    const { connection, holder, waiter } = await setUp();
    await hold(holder.fairLock$('line', { owner: 'stuck' }));
    const plan = planForceUnlock(await requireObject(connection, 'line'));

    const said = await unlockIfUnchanged(connection, 'line', plan, async () => {
      await requireObject(connection, 'line');
      holds.push(waiter.fairLock$('line', { owner: 'joined' }).subscribe({ error: () => undefined }));
      await eventually(async () => (await server.client().llen('redisson_lock_queue:{line}')) === 1);
    });

    expect(said).toBe('unlocked fair lock "line" (was held by holder:stuck ×1)');
    await eventually(async () => (await server.client().hget('line', 'waiter:joined')) === '1');
  });

  it('takes back leased permits and opens a latch in the transaction; a permit taken after the read stops it', async () => {
    const { connection, holder, waiter } = await setUp();
    const slots = holder.leasedSemaphore('slots');
    await slots.trySetPermits(2);
    await hold(slots.acquire$(1));
    const slotsPlan = planForceUnlock(await requireObject(connection, 'slots'));
    const raced = unlockIfUnchanged(connection, 'slots', slotsPlan, async () => {
      await requireObject(connection, 'slots');
      await hold(waiter.leasedSemaphore('slots').acquire$(1));
    });
    await expect(raced).rejects.toThrow(/"slots" changed while you were asked/);
    expect(await server.client().zcard('{slots}:timeout')).toBe(2);

    const again = planForceUnlock(await requireObject(connection, 'slots'));
    expect(await unlockIfUnchanged(connection, 'slots', again, () => Promise.resolve())).toBe('took back 2 permits of semaphore "slots"');
    expect(await server.client().zcard('{slots}:timeout')).toBe(0);

    await holder.latch('gate').trySetCount(2);
    const gatePlan = planForceUnlock(await requireObject(connection, 'gate', new Set(['latch'])));
    expect(await unlockIfUnchanged(connection, 'gate', gatePlan, () => Promise.resolve())).toBe('opened latch "gate"');
    expect(await server.client().exists('gate')).toBe(0);
  });

  it('ends its WATCH when the second read refuses', async () => {
    const { connection, holder } = await setUp();
    await hold(holder.lock$('kept', { owner: 'stuck' }));
    const plan = planForceUnlock(await requireObject(connection, 'kept'));
    const refusal = new CliError('changed');

    await expect(unlockIfUnchanged(connection, 'kept', plan, () => Promise.reject(refusal))).rejects.toBe(refusal);

    // A transaction on the same connection runs: no WATCH was left behind on it.
    await server.client().set('elsewhere', '1');
    expect(await (connection.redis as import('ioredis').Redis).multi().get('elsewhere').exec()).toEqual([[null, '1']]);
    expect(await server.client().hget('kept', 'holder:stuck')).toBe('1');
  });
});
