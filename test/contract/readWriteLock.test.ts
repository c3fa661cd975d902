import type { Redis } from 'ioredis';
import { firstValueFrom, NEVER, switchMap, type Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockKeyTypeError, LockLostError, LockTimeoutError, LockUpgradeError, type Lease } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';
import { sharedRedis } from '../support/sharedRedis.js';

/** Subscribes and keeps the hold until `subscription.unsubscribe()`; `lease` resolves when it is granted. */
function hold(lease$: Observable<Lease>): { lease: Promise<Lease>; subscription: Subscription } {
  let subscription!: Subscription;
  const lease = new Promise<Lease>((resolve, reject) => {
    subscription = lease$.subscribe({ next: resolve, error: reject });
  });
  return { lease, subscription };
}

describeStores('readLock$ / writeLock$ contract', (fixture) => {
  it('lets 20 readers blocked behind a writer hold the read lock together right after the write release', async () => {
    const f = fixture();
    const writer = f.client();
    const readerClients = Array.from({ length: 5 }, () => f.client());
    const write = hold(writer.writeLock$('doc'));
    await write.lease;
    let inside = 0;
    let mostInside = 0;
    const grantedAt: number[] = [];
    const reads = readerClients.flatMap((client) =>
      Array.from({ length: 4 }, () => {
        const read = hold(client.readLock$('doc'));
        void read.lease.then(() => {
          grantedAt.push(performance.now());
          mostInside = Math.max(mostInside, ++inside);
        });
        return read;
      }),
    );
    await sleep(100);
    expect(grantedAt).toEqual([]);
    const releasedAt = performance.now();
    write.subscription.unsubscribe();
    await Promise.all(reads.map((read) => read.lease));
    // Nobody has released yet: all 20 hold at the same time.
    expect(mostInside).toBe(20);
    expect(Math.min(...grantedAt)).toBeGreaterThanOrEqual(releasedAt);
    // Woken by the write release's message, not by the 30 s TTL fallback.
    expect(Math.max(...grantedAt) - releasedAt).toBeLessThan(5_000);
    for (const read of reads) read.subscription.unsubscribe();
  });

  it('keeps a writer out while two readers hold, until both have left', async () => {
    const f = fixture();
    const [a, b, writer] = [f.client(), f.client(), f.client()];
    const first = hold(a.readLock$('doc'));
    const second = hold(b.readLock$('doc'));
    await Promise.all([first.lease, second.lease]);
    await expect(firstValueFrom(writer.writeLock$('doc', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    let written = false;
    const write = hold(writer.writeLock$('doc'));
    void write.lease.then(() => (written = true));
    first.subscription.unsubscribe();
    await sleep(150);
    expect(written).toBe(false);
    expect(await f.hget('doc', 'mode')).toBe('read');
    second.subscription.unsubscribe();
    await write.lease;
    expect(await f.hget('doc', 'mode')).toBe('write');
    write.subscription.unsubscribe();
  });

  it('lets a writer downgrade (take the read lock, keep it after the write release) and refuses an upgrade at once', async () => {
    const f = fixture();
    const owner = f.client({ clientId: 'node-1' });
    const other = f.client();
    const write = hold(owner.writeLock$('doc', { owner: 'job' }));
    await write.lease;
    const read = hold(owner.readLock$('doc', { owner: 'job' }));
    await read.lease;
    await expect(firstValueFrom(other.readLock$('doc', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    write.subscription.unsubscribe();
    // The write release downgraded the lock: still read-held by job, now open to other readers.
    const otherRead = hold(other.readLock$('doc', { waitMs: 5_000 }));
    await otherRead.lease;
    expect([await f.hget('doc', 'mode'), await f.hget('doc', 'node-1:job'), await f.hget('doc', 'node-1:job:write')]).toEqual(['read', '1', null]);
    const commandsBefore = f.commands();
    const upgrade = await firstValueFrom(owner.writeLock$('doc', { owner: 'job' })).catch((error: unknown) => error);
    expect(upgrade).toBeInstanceOf(LockUpgradeError);
    expect(upgrade).toMatchObject({ lockName: 'doc', owner: 'job' });
    // One attempt, refused by the script, which changed nothing.
    expect(f.commands() - commandsBefore).toBe(1);
    expect(await f.hget('doc', 'node-1:job:write')).toBeNull();
    read.subscription.unsubscribe();
    otherRead.subscription.unsubscribe();
  });

  it('re-enters reads and writes of one owner and frees the lock only when every hold is released', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-1' });
    const other = f.client();
    const holds = [
      hold(client.writeLock$('doc', { owner: 'job' })),
      hold(client.writeLock$('doc', { owner: 'job' })),
      hold(client.readLock$('doc', { owner: 'job' })),
    ];
    await Promise.all(holds.map((h) => h.lease));
    expect([await f.hget('doc', 'node-1:job:write'), await f.hget('doc', 'node-1:job')]).toEqual(['2', '1']);
    for (const h of holds) h.subscription.unsubscribe();
    const lease = await firstValueFrom(other.writeLock$('doc', { waitMs: 5_000 }));
    expect(lease.name).toBe('doc');
  });

  it('lets readers that died age out: the hash TTL follows the live readers', async () => {
    const f = fixture();
    const reader = f.client();
    const writer = f.client();
    // A reader of a client that died (Redisson's layout): its timeout key is not renewed and runs out in 800 ms.
    await f.setHash('doc', 'mode', 'read');
    await f.setHash('doc', 'ghost:1', '1', 800);
    await f.setString('{doc}:ghost:1:rwlock_timeout:1', '1', 800);
    const read = hold(reader.readLock$('doc'));
    await read.lease;
    expect(await f.pttl('doc')).toBeGreaterThan(20_000);
    const write = hold(writer.writeLock$('doc'));
    let writtenAt = 0;
    void write.lease.then(() => (writtenAt = performance.now()));
    await sleep(50);
    read.subscription.unsubscribe();
    // The live reader left: the hash now lives only as long as the dead reader's timeout key.
    await sleep(50);
    // Redis read the TTL after `askedAt`, so the hash expires no earlier than `askedAt + ttl` (the reply's own delay is not counted in).
    const askedAt = performance.now();
    const ttl = await f.pttl('doc');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(800);
    const ghostGoneAt = askedAt + ttl;
    await write.lease;
    expect(writtenAt).toBeGreaterThanOrEqual(ghostGoneAt - 5);
    expect(writtenAt - ghostGoneAt).toBeLessThan(2_000);
    write.subscription.unsubscribe();
  });

  it('keeps a longer read hold when a shorter, earlier read hold of the same owner runs out', async () => {
    const f = fixture();
    const owner = f.client({ clientId: 'node-1' });
    const writer = f.client();
    // Hold 1 gets timeout key :1 (600 ms), hold 2 gets :2 (10 s); hold 1 runs out first and is released.
    const short = firstValueFrom(owner.readLock$('doc', { owner: 'job', leaseMs: 600 }).pipe(switchMap(() => NEVER))).catch((e: unknown) => e);
    expect(await eventually(async () => (await f.hget('doc', 'node-1:job')) === '1')).toBe(true);
    const long = hold(owner.readLock$('doc', { owner: 'job', leaseMs: 10_000 }));
    await long.lease;
    expect(await f.hget('doc', 'node-1:job')).toBe('2');
    const lost = await short;
    expect(lost).toBeInstanceOf(LockLostError);
    expect((lost as LockLostError).reason).toBe('expired');
    // Time for that release to run, and for a hash cut down to hold 1's timeout to run out.
    await sleep(500);
    expect(await f.hget('doc', 'node-1:job')).toBe('1');
    expect(await f.pttl('doc')).toBeGreaterThan(5_000);
    await expect(firstValueFrom(writer.writeLock$('doc', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    long.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('never cuts short a fixed read lease that its owner also holds under the watchdog', async () => {
    const f = fixture();
    const owner = f.client({ clientId: 'node-1', watchdogTimeoutMs: 300 });
    const writer = f.client();
    let renewals = 0;
    owner.events$.subscribe((event) => {
      if (event.type === 'renewed') renewals++;
    });
    const fixed = hold(owner.readLock$('doc', { owner: 'job', leaseMs: 10_000 }));
    await fixed.lease;
    const watched = hold(owner.readLock$('doc', { owner: 'job' }));
    await watched.lease;
    expect(await eventually(() => renewals >= 2)).toBe(true);
    watched.subscription.unsubscribe();
    expect(await eventually(async () => (await f.hget('doc', 'node-1:job')) === '1')).toBe(true);
    // Longer than the watchdog's TTL: timeout keys cut down to it by a renewal would have shrunk the hash by now.
    await sleep(500);
    expect(await f.pttl('doc')).toBeGreaterThan(5_000);
    await expect(firstValueFrom(writer.writeLock$('doc', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    fixed.subscription.unsubscribe();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('forceUnlock deletes a read lock with its readers’ timeout keys and wakes a waiting writer at once', async () => {
    const f = fixture();
    const [holder, writer, admin] = [f.client({ watchdogTimeoutMs: 30_000 }), f.client(), f.client()];
    const read = hold(holder.readLock$('forced-rw'));
    await read.lease;
    expect((await f.keys()).filter((key) => key.includes(':rwlock_timeout:'))).toHaveLength(1);
    const write = hold(writer.writeLock$('forced-rw'));
    await sleep(100);
    expect(await f.hget('forced-rw', 'mode')).toBe('read');
    const forcedAt = performance.now();
    expect(await admin.forceUnlock('forced-rw')).toBe(true);
    await write.lease;
    expect(performance.now() - forcedAt).toBeLessThan(2_000);
    expect(await f.hget('forced-rw', 'mode')).toBe('write');
    expect((await f.keys()).filter((key) => key.includes(':rwlock_timeout:'))).toEqual([]);
    write.subscription.unsubscribe();
    read.subscription.unsubscribe();
    expect(await admin.forceUnlock('forced-rw')).toBe(false);
  });

  it('refuses a key of another type, or another primitive’s hash, with LockKeyTypeError and leaves it untouched', async () => {
    const f = fixture();
    const client = f.client();
    await f.setString('str', 'payload');
    await f.setHash('plain', 'someone:1', '1');
    for (const [key, lease$] of [
      ['str', client.readLock$('str')],
      ['str', client.writeLock$('str')],
      ['plain', client.readLock$('plain')],
      ['plain', client.writeLock$('plain')],
    ] as const) {
      const error = await firstValueFrom(lease$).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockKeyTypeError);
      expect(error).toMatchObject({ key });
    }
    expect([await f.get('str'), await f.hget('plain', 'someone:1'), await f.hget('plain', 'mode')]).toEqual(['payload', '1', null]);
    await f.flush();
  });

  it('names a holds key of another type when a reentrant owner releases a read or write hold, and changes nothing', async () => {
    const f = fixture();
    const client = f.client();
    const failures: LockKeyTypeError[] = [];
    client.events$.subscribe((event) => {
      if (event.type === 'release-failed' && event.error instanceof LockKeyTypeError) failures.push(event.error);
    });
    for (const [name, lease$] of [
      ['read-held', client.readLock$('read-held', { owner: 'worker-1' })],
      ['write-held', client.writeLock$('write-held', { owner: 'worker-1' })],
    ] as const) {
      const subscription = lease$.subscribe();
      expect(await eventually(async () => Object.keys(await f.hgetall(name)).length === 2)).toBe(true);
      const held = await f.hgetall(name);
      await f.setString(`rxlock_holds:{${name}}`, 'payload');
      subscription.unsubscribe();
      expect(await eventually(() => Promise.resolve(failures.some((error) => error.key === `rxlock_holds:{${name}}`)))).toBe(true);
      expect([await f.hgetall(name), await f.get(`rxlock_holds:{${name}}`)]).toEqual([held, 'payload']);
    }
    expect(failures.map((error) => error.actualType)).toEqual(['string', 'string']);
    await f.flush();
  });

  it('refuses bad input with a typed error in the stream and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const cases: [Observable<Lease>, ErrorConstructor][] = [
      [client.readLock$('doc', { leaseMs: -1 }), RangeError],
      [client.writeLock$('doc', { waitMs: Number.NaN }), RangeError],
      [client.readLock$('', {}), TypeError],
      [client.writeLock$('doc', { owner: 'a:b' }), TypeError],
      [client.readLock$('doc', { fencing: true } as never), TypeError],
      [client.writeLock$(42 as never), TypeError],
    ];
    for (const [lease$, type] of cases) {
      const error = await firstValueFrom(lease$).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
    }
    expect(await firstValueFrom(client.readLock$('doc', { leaseMs: 0 })).catch((e: unknown) => (e as Error).message)).toMatch(
      /readLock\$\("doc"\).*leaseMs.*0/,
    );
    expect(f.commands()).toBe(0);
  });
});

/** Redisson's RReadWriteLock scripts (RedissonReadLock / RedissonWriteLock, without the unlock-latch retry key), for field `<uuid>:<threadId>`. */
const redissonRead = {
  tryLock: `local mode = redis.call('hget', KEYS[1], 'mode')
if (mode == false) then
  redis.call('hset', KEYS[1], 'mode', 'read'); redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('set', KEYS[2] .. ':1', 1); redis.call('pexpire', KEYS[2] .. ':1', ARGV[1]); redis.call('pexpire', KEYS[1], ARGV[1]); return nil
end
if (mode == 'read') or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  local ind = redis.call('hincrby', KEYS[1], ARGV[2], 1); local key = KEYS[2] .. ':' .. ind
  redis.call('set', key, 1); redis.call('pexpire', key, ARGV[1])
  local remainTime = redis.call('pttl', KEYS[1]); redis.call('pexpire', KEYS[1], math.max(remainTime, ARGV[1])); return nil
end
return redis.call('pttl', KEYS[1])`,
  unlock: `local mode = redis.call('hget', KEYS[1], 'mode')
if (mode == false) then redis.call('publish', KEYS[2], ARGV[1]); return 1 end
if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then return nil end
local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if (counter == 0) then redis.call('hdel', KEYS[1], ARGV[2]) end
redis.call('del', KEYS[3] .. ':' .. (counter + 1))
if (redis.call('hlen', KEYS[1]) > 1) then
  local maxRemainTime = -3
  local keys = redis.call('hkeys', KEYS[1])
  for n, key in ipairs(keys) do
    counter = tonumber(redis.call('hget', KEYS[1], key))
    if type(counter) == 'number' then
      for i = counter, 1, -1 do
        local remainTime = redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i)
        maxRemainTime = math.max(remainTime, maxRemainTime)
      end
    end
  end
  if maxRemainTime > 0 then redis.call('pexpire', KEYS[1], maxRemainTime); return 0 end
  if mode == 'write' then return 0 end
end
redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1`,
};

describe('readLock$ / writeLock$ with Redisson’s RReadWriteLock scripts on the same Redis', () => {
  const scene = sharedRedis();

  const field = 'b6f1f7ae-redisson-peer:1';
  const redissonReadLock = (redis: Redis) => redis.eval(redissonRead.tryLock, 2, 'doc', `{doc}:${field}:rwlock_timeout`, 30_000, field, `${field}:write`);
  const redissonReadUnlock = (redis: Redis) =>
    redis.eval(redissonRead.unlock, 4, 'doc', 'redisson_rwlock:{doc}', `{doc}:${field}:rwlock_timeout`, '{doc}', 0, field);

  it('shares the read lock with a Redisson reader, keeps writers out of both, and hears Redisson’s read unlock', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    expect(await redissonReadLock(redis)).toBeNull();
    const read = hold(client.readLock$('doc', { waitMs: 0 }));
    await read.lease;
    await expect(firstValueFrom(client.writeLock$('doc', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const write = hold(client.writeLock$('doc'));
    read.subscription.unsubscribe();
    await sleep(100);
    // Redisson's reader still holds: the hash stays, in read mode.
    expect(await redis.hget('doc', 'mode')).toBe('read');
    const releasedAt = performance.now();
    expect(await redissonReadUnlock(redis)).toBe(1);
    await write.lease;
    // The hash's TTL is 30 s: only Redisson's `0` on redisson_rwlock:{doc} explains this.
    expect(performance.now() - releasedAt).toBeLessThan(2_000);
    // And a Redisson reader is kept out while rxlock writes.
    expect(Number(await redissonReadLock(redis))).toBeGreaterThan(0);
    write.subscription.unsubscribe();
  });
});
