import { firstValueFrom, type Subscription } from 'rxjs';
import type { Redis } from 'ioredis';
import { createLockClient, type Lease, type LockClient } from '../../src/index.js';
import { eventually } from '../support/leaks.js';
import type { RedisServer } from '../support/redisServer.js';

/** A Redisson process's owner ids, for the objects written in Redisson's layout by hand. */
export const REDISSON = 'c0ffee00-1111-2222-3333-444455556666';

/** What `prepareEveryPrimitive` set up, with handles to watch waiters and to clean up. */
export interface Prepared {
  readonly app: LockClient;
  readonly other: LockClient;
  /** Resolves with the waiter's lease once the waiter for `orders:1` gets the lock. */
  readonly ordersWaiter: Promise<Lease>;
  /** Ids of the leased permits of `slots`. */
  readonly permitIds: readonly string[];
  /** Ends every hold and waiter, closes the clients and deletes every key. */
  close(): Promise<void>;
}

/**
 * One of every lock-family object, made with rxlock's own primitives where they exist and in Redisson's
 * documented layout otherwise (fair lock, latch): the set `rxlock ls` must recognise.
 *
 * - `orders:1`   lock held by app-1:worker-1 with a fencing token, one rxlock waiter (app-2:worker-2)
 * - `orders:2`   lock held twice (re-entered) by app-1:job
 * - `catalog`    read-write lock, read by app-1:reader-1 and app-1:reader-2
 * - `prices`     read-write lock, written by app-1:writer-1
 * - `pool`       semaphore, 3 permits, 2 taken by one holder
 * - `slots`      leased semaphore, 2 permits, 1 leased for 60 s
 * - `payments`   fair lock held by app-1:payer-1 with app-2:payer-2 and app-2:payer-3 queued
 * - `refunds`    fair lock in Redisson's layout, held by REDISSON:1 with REDISSON:2 and REDISSON:3 queued
 * - `batch`      latch, count 3, awaited by app-2
 * - `reports`    fencing counter at 7, lock not held
 * - `counter`    an integer string nothing tells apart (semaphore or latch)
 * - `user:1`, `jobs`   keys of other uses (a hash, a list)
 */
export async function prepareEveryPrimitive(server: RedisServer): Promise<Prepared> {
  const redis = server.client();
  const app = createLockClient({ redis: server.client(), clientId: 'app-1' });
  const other = createLockClient({ redis: server.client(), clientId: 'app-2' });
  const holds: Subscription[] = [];
  const hold = async (lease$: { subscribe: (observer: { next: () => void; error: () => void }) => Subscription }): Promise<void> => {
    // A hold that ends later (the test force-unlocked it) is expected: only a hold that never began fails.
    await new Promise<void>((resolve, reject) => holds.push(lease$.subscribe({ next: () => resolve(), error: () => reject(new Error('hold failed')) })));
  };

  await hold(app.lock$('orders:1', { owner: 'worker-1', fencing: true }));
  const ordersWaiter = firstValueFrom(other.lock$('orders:1', { owner: 'worker-2' }));
  await hold(app.lock$('orders:2', { owner: 'job' }));
  await hold(app.lock$('orders:2', { owner: 'job' }));
  await hold(app.readLock$('catalog', { owner: 'reader-1' }));
  await hold(app.readLock$('catalog', { owner: 'reader-2' }));
  await hold(app.writeLock$('prices', { owner: 'writer-1' }));
  await app.semaphore('pool').trySetPermits(3);
  await hold(app.semaphore('pool').acquire$(2));
  const slots = app.leasedSemaphore('slots');
  await slots.trySetPermits(2);
  const permitIds: string[] = [];
  holds.push(slots.acquire$(1, { leaseMs: 600_000 }).subscribe({ next: (lease) => permitIds.push(...lease.permitIds), error: () => undefined }));
  await hold(app.fairLock$('payments', { owner: 'payer-1' }));
  holds.push(other.fairLock$('payments', { owner: 'payer-2' }).subscribe({ error: () => undefined }));
  await eventually(async () => (await redis.llen('redisson_lock_queue:{payments}')) === 1);
  holds.push(other.fairLock$('payments', { owner: 'payer-3' }).subscribe({ error: () => undefined }));
  await writeRedissonFairLock(redis, 'refunds');
  await app.latch('batch').trySetCount(3);
  holds.push(
    other
      .latch('batch')
      .await$()
      .subscribe({ error: () => undefined }),
  );
  await redis.set('redisson_lock_token:{reports}', '7');
  await redis.set('counter', '5');
  await redis.hset('user:1', 'name', 'Ada');
  await redis.rpush('jobs', 'a', 'b');
  const settled = await eventually(
    async () =>
      (await redis.zcard('rxlock_waiters:{orders:1}')) === 1 &&
      (await redis.llen('redisson_lock_queue:{payments}')) === 2 &&
      (await subscribers(redis, 'redisson_countdownlatch__channel__{batch}')) === 1 &&
      (await subscribers(redis, 'redisson_lock__channel:{orders:1}')) === 1 &&
      permitIds.length === 1,
  );
  if (!settled) throw new Error('the waiters never showed up in Redis');

  return {
    app,
    other,
    ordersWaiter,
    permitIds,
    async close() {
      for (const subscription of holds) subscription.unsubscribe();
      ordersWaiter.catch(() => undefined);
      await Promise.all([app.close(), other.close()]);
      await redis.flushall();
    },
  };
}

async function subscribers(redis: Redis, channel: string): Promise<number> {
  const [, count] = (await redis.pubsub('NUMSUB', channel)) as [string, number | string];
  return Number(count);
}

/** Redisson's fair lock, held by thread 1 with threads 2 and 3 queued (deadlines 40 s and 45 s away). */
export async function writeRedissonFairLock(redis: Redis, name: string): Promise<void> {
  const now = Date.now();
  await redis.hset(name, `${REDISSON}:1`, '1');
  await redis.pexpire(name, 30_000);
  await redis.rpush(`redisson_lock_queue:{${name}}`, `${REDISSON}:2`, `${REDISSON}:3`);
  await redis.zadd(`redisson_lock_timeout:{${name}}`, now + 40_000, `${REDISSON}:2`, now + 45_000, `${REDISSON}:3`);
}
