import type { Redis } from 'ioredis';
import { firstValueFrom, type Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError, type Lease } from '../src/index.js';
import { eventually, sleep } from './support/leaks.js';
import { sharedRedis } from './support/sharedRedis.js';

// Redisson's own Lua, copied from redisson/redisson at 6686397 (≈ 4.7.0), each with the file and method it came
// from; KEYS and ARGV as those methods pass them. The tests run them against rxlock on the same keys.

/** redisson/src/main/java/org/redisson/RedissonSemaphore.java */
const RSemaphore = {
  /** trySetPermitsAsync(int, Duration). KEYS: name, channel. ARGV: permits, publish command, ttl ms. */
  trySetPermitsTtl: `local value = redis.call('get', KEYS[1]); if (value == false) then redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[3]); redis.call(ARGV[2], KEYS[2], ARGV[1]); return 1;end;return 0;`,
  /** releaseIfExistsAsync(int). KEYS: name, channel. ARGV: permits, publish command. */
  releaseIfExists: `if redis.call('exists', KEYS[1]) == 0 then return 0 end local value = redis.call('incrby', KEYS[1], ARGV[1]) redis.call(ARGV[2], KEYS[2], value) return 1 `,
  /** drainPermitsAsync(). KEYS: name. */
  drainPermits: `local value = redis.call('get', KEYS[1]); if (value == false) then return 0; end; redis.call('set', KEYS[1], 0); return value;`,
};

/** redisson/src/main/java/org/redisson/RedissonPermitExpirableSemaphore.java */
const RPermitExpirableSemaphore = {
  /** tryAcquireAsync(List<String>, long). KEYS: name, timeout, channel. ARGV: permits, expiry, now, non-expirable, publish command, ids. */
  tryAcquire: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1]); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[5], KEYS[3], value); end;end; local value = redis.call('get', KEYS[1]); if (value ~= false and tonumber(value) >= tonumber(ARGV[1])) then redis.call('decrby', KEYS[1], ARGV[1]); for i = 6, #ARGV, 1 do redis.call('zadd', KEYS[2], ARGV[2], ARGV[i]); end; local ttl = redis.call('pttl', KEYS[1]); if ttl > 0 then redis.call('pexpire', KEYS[2], ttl); end; return 'OK'; end; local v = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES'); if v[1] ~= nil and v[2] ~= ARGV[4] then return ':' .. tostring(v[2]); end return nil;`,
  /** updateLeaseTimeAsync. KEYS: name, timeout, channel. ARGV: id, expiry, now, publish command. */
  updateLeaseTime: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[4], KEYS[3], value); end;end; local value = redis.call('zscore', KEYS[2], ARGV[1]); if (value ~= false) then redis.call('zadd', KEYS[2], ARGV[2], ARGV[1]); return 1;end;return 0;`,
  /** getLeaseTimeAsync. KEYS: name, timeout, channel. ARGV: id, non-expirable, now, publish command. */
  getLeaseTime: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[4], KEYS[3], value); end;end; local value = redis.call('zscore', KEYS[2], ARGV[1]); if (value ~= false) then return tonumber(value) == tonumber(ARGV[2]) and -1 or tonumber(value) - tonumber(ARGV[3]);end;return 0;`,
  /** tryReleaseAsync(List<String>). KEYS: name, channel, timeout. ARGV: count, now, publish command, ids. */
  tryReleaseList: `for i = 4, #ARGV, 1 do local expire = redis.call('zscore', KEYS[3], ARGV[i]);if expire== false or tonumber(expire) <= tonumber(ARGV[2]) then return 0;end; end; local expiredIds = redis.call('zrangebyscore', KEYS[3], 0, ARGV[2], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[3], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[3], KEYS[2], value); end; end; local keys = {}; for i = 4, #ARGV, 1 do table.insert(keys, ARGV[i]); end; local removed = redis.call('zrem', KEYS[3], unpack(keys)); redis.call('incrby', KEYS[1], removed); redis.call(ARGV[3], KEYS[2], removed); return removed;`,
  /** setPermitsAsync. KEYS: name, channel, timeout. ARGV: permits, publish command. */
  setPermits: `local available = redis.call('get', KEYS[1]); if (available == false) then redis.call('set', KEYS[1], ARGV[1]); redis.call(ARGV[2], KEYS[2], ARGV[1]); return;end;local acquired = redis.call('zcount', KEYS[3], 0, '+inf'); local maximum = (acquired == false and 0 or acquired) + tonumber(available); if (maximum == tonumber(ARGV[1])) then return;end;redis.call('incrby', KEYS[1], tonumber(ARGV[1]) - maximum); redis.call(ARGV[2], KEYS[2], ARGV[1]);`,
  /** getPermitsAsync. KEYS: name, timeout, channel. ARGV: now, publish command. */
  getPermits: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[2], KEYS[3], value); end;end; local available = redis.call('get', KEYS[1]); if available == false then return 0 end;local acquired = redis.call('zcount', KEYS[2], 0, '+inf'); if acquired == false then return tonumber(available) end;return tonumber(available) + acquired;`,
  /** acquiredPermitsAsync. KEYS: name, timeout, channel. ARGV: now, publish command. */
  acquiredPermits: `local expiredIds = redis.call('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1); if #expiredIds > 0 then redis.call('zrem', KEYS[2], unpack(expiredIds)); local value = redis.call('incrby', KEYS[1], #expiredIds); if tonumber(value) > 0 then redis.call(ARGV[2], KEYS[3], value); end;end; local acquired = redis.call('zcount', KEYS[2], 0, '+inf'); return acquired == false and 0 or acquired;`,
};

/** redisson/src/main/java/org/redisson/RedissonFasterMultiLock.java, and the renewal in renewal/FastMultilockTask.java */
const RedissonFasterMultiLock = {
  /** tryLockInnerAsync. KEYS: group. ARGV: leaseTime, now, lockName, fields. nil when acquired, else ms until the latest other expiry. */
  tryLock: `local leaseTime = tonumber(ARGV[1]);local currentTime = tonumber(ARGV[2]);local currentThread = ARGV[3];local maxExpireTime = -1;local keyExist = nil;if (tonumber(redis.call('exists',KEYS[1])) > 0) then   keyExist = 1;   for i=4, #ARGV, 1 do        local lockThread = redis.call('hget', KEYS[1], ARGV[i]);        if(lockThread ~= false and lockThread ~= currentThread) then            local expireFieldName = ARGV[i]..':'..lockThread..':expire_time';           local expireTime = redis.call('hget', KEYS[1], expireFieldName);           if(expireTime ~= false and tonumber(expireTime) > currentTime ) then                if(tonumber(expireTime) > maxExpireTime) then                   maxExpireTime = tonumber(expireTime);               end;           end       end;    end; else   keyExist = 0;end;if( maxExpireTime ~= -1) then   return maxExpireTime-currentTime;end;for i=4, #ARGV, 1 do    redis.call('hset', KEYS[1], ARGV[i], currentThread);    local expireFieldName = ARGV[i]..':'..currentThread..':expire_time'   local expireTime = redis.call('hget', KEYS[1], expireFieldName);    local newExpireTime = leaseTime + currentTime    if(expireTime == false or tonumber(expireTime) < newExpireTime ) then      redis.call('hset', KEYS[1], expireFieldName, newExpireTime);    end;   redis.call('HINCRBY', KEYS[1], ARGV[i]..':'..currentThread..':lock_count', 1); end; if(keyExist == 1) then   local expireTime = redis.call('pttl',KEYS[1]);   if(tonumber(expireTime) > 0 and leaseTime > tonumber(expireTime)) then       redis.call('pexpire',KEYS[1], leaseTime);   end;else    redis.call('pexpire',KEYS[1], leaseTime);end;return nil;`,
  /** unlockInnerAsync. KEYS: group, channel, unlock latch. ARGV: lockName, 0, lease, publish command, latch ms, now, fields. nil: not this thread's. */
  unlock: `local val = redis.call('get', KEYS[3]); if val ~= false then    return tonumber(val);end; if(redis.call('exists', KEYS[1]) == 0) then   redis.call(ARGV[4], KEYS[2], ARGV[2]);    return nil;end;local lockName = ARGV[1];local hasFailed = 0;local allDeleted = 1;local hasDeleted = 0;local newExpireTime = tonumber(ARGV[3]) + tonumber(ARGV[6]);for i = 7,#ARGV,1 do   local expireTime = redis.call('hget', KEYS[1], ARGV[i]..':'..lockName..':expire_time');   if (expireTime ~= false and tonumber(expireTime) >= tonumber(ARGV[6])) then       if(tonumber(redis.call('hincrby', KEYS[1], ARGV[i]..':'..lockName..':lock_count',-1)) <= 0) then           redis.call('hdel',KEYS[1], ARGV[i]..':'..lockName..':expire_time');           redis.call('hdel',KEYS[1], ARGV[i]..':'..lockName..':lock_count');           redis.call('hdel',KEYS[1], ARGV[i]);           hasDeleted = 1;       else           if(tonumber(expireTime) < newExpireTime) then                redis.call('hset', KEYS[1], ARGV[i]..':'..lockName..':expire_time', newExpireTime);           end;           allDeleted = 0;       end;   else       allDeleted = 0;       hasFailed = 1;   end;end;if(hasFailed ~= 0) then   return nil;end;if(hasDeleted) then   redis.call(ARGV[4], KEYS[2], ARGV[2]); end;if(allDeleted == 1) then   redis.call('set', KEYS[3], 1, 'px', ARGV[5]); else    redis.call('set', KEYS[3], 0, 'px', ARGV[5]);    local expireTime = redis.call('pttl',KEYS[1]);   if(tonumber(ARGV[3]) > tonumber(expireTime)) then       redis.call('pexpire',KEYS[1], ARGV[3]);   end;end;return allDeleted;`,
  /** isLockedAsync. KEYS: group. ARGV: now, fields. 1 if any value is held. */
  isLocked: `local currentTime = tonumber(ARGV[1]);for i = 2,#ARGV,1 do   local localThread = redis.call('hget', KEYS[1], ARGV[i]);   if(localThread ~= false) then       local expireTime = redis.call('hget', KEYS[1], ARGV[i]..':'..localThread..':expire_time');       if (expireTime ~= false and tonumber(expireTime) >= currentTime) then           return 1;       end;   end;end;return 0;`,
  /** forceUnlockAsync. KEYS: group, channel. ARGV: 0, publish command, fields. */
  forceUnlock: `local removeCount = 0;for i=3, #ARGV, 1 do     local lockName = redis.call('hget', KEYS[1], ARGV[i]);     local count = redis.call('HDEL', KEYS[1], ARGV[i]);     redis.call('HDEL', KEYS[1], ARGV[i]..':'..lockName..':expire_time');     redis.call('HDEL', KEYS[1], ARGV[i]..':'..lockName..':lock_count');     removeCount = removeCount+count;end; redis.call(ARGV[2], KEYS[2], ARGV[1]); return removeCount; `,
  /** FastMultilockTask.buildChunk. KEYS: group. ARGV: lease, now, lockName, fields. 1 renewed, 0 not this thread's. */
  renew: `local leaseTime = tonumber(ARGV[1]);local currentTime = tonumber(ARGV[2]);local currentThread = ARGV[3];if (redis.call('exists',KEYS[1]) > 0) then   local newExpireTime = leaseTime + currentTime;   for i=4, #ARGV, 1 do        local lockThread = redis.call('hget', KEYS[1], ARGV[i]);       if(lockThread ~= false and lockThread == currentThread) then            local expireFieldName = ARGV[i]..':'..lockThread..':expire_time';           local expireTime = redis.call('hget', KEYS[1], expireFieldName);           if(tonumber(expireTime) < newExpireTime) then                redis.call('hset', KEYS[1],expireFieldName, newExpireTime);           end;       else           return 0;       end;   end;    local expireTime = redis.call('pttl',KEYS[1]);   if(tonumber(expireTime) < tonumber(leaseTime)) then        redis.call('pexpire',KEYS[1], leaseTime);   end;   return 1;end;return 0;`,
};

/** The fields a Redisson client with StringCodec locks these values under (computed with Redisson's HighwayHash on the JVM). */
const FIELD = { Jack_001: '7pNoDdizVy2xY792MaFv+w', Mary_002: 'kIX2DFOX4IWct7G7K6tV9A' } as const;
const NON_EXPIRABLE = 922337203685477;

function hold<L extends Lease>(lease$: Observable<L>): { lease: Promise<L>; ended: Promise<unknown>; subscription: Subscription } {
  let subscription!: Subscription;
  let ended!: Promise<unknown>;
  const lease = new Promise<L>((resolve, reject) => {
    ended = new Promise((settle) => {
      subscription = lease$.subscribe({ next: resolve, error: (error: unknown) => (reject(error), settle(error)) });
    });
  });
  lease.catch(() => undefined);
  return { lease, ended, subscription };
}

/** A Redisson client's RedissonFasterMultiLock on `group`, thread `threadId`, by its own scripts. */
class GroupPeer {
  readonly #redis: Redis;
  readonly #group: string;
  readonly lockName: string;

  constructor(redis: Redis, group: string, threadId: number) {
    this.#redis = redis;
    this.#group = group;
    this.lockName = `b6f1f7ae-redisson-peer:${threadId}`;
  }

  get channel(): string {
    return `redisson_lock__channel:{${this.#group}}`;
  }

  async tryLock(fields: readonly string[], leaseMs = 30_000): Promise<number | null> {
    const reply = await this.#redis.eval(RedissonFasterMultiLock.tryLock, 1, this.#group, leaseMs, Date.now(), this.lockName, ...fields);
    return reply === null ? null : Number(reply);
  }

  /** unlock, deleting its latch afterwards as Redisson's unlockInnerAsync does. */
  async unlock(fields: readonly string[]): Promise<number | null> {
    const latch = `redisson_unlock_latch:{${this.#group}}:req-${String(Math.random()).slice(2)}`;
    const reply = await this.#redis.eval(
      RedissonFasterMultiLock.unlock,
      3,
      this.#group,
      this.channel,
      latch,
      this.lockName,
      0,
      30_000,
      'publish',
      10_000,
      Date.now(),
      ...fields,
    );
    await this.#redis.del(latch);
    return reply === null ? null : Number(reply);
  }

  async isLocked(fields: readonly string[]): Promise<number> {
    return Number(await this.#redis.eval(RedissonFasterMultiLock.isLocked, 1, this.#group, Date.now(), ...fields));
  }

  async renew(fields: readonly string[]): Promise<number> {
    return Number(await this.#redis.eval(RedissonFasterMultiLock.renew, 1, this.#group, 30_000, Date.now(), this.lockName, ...fields));
  }

  async forceUnlock(fields: readonly string[]): Promise<number> {
    return Number(await this.#redis.eval(RedissonFasterMultiLock.forceUnlock, 2, this.#group, this.channel, 0, 'publish', ...fields));
  }
}

describe('semaphore with Redisson’s RSemaphore scripts of 3.29–4.x on the same Redis', () => {
  const scene = sharedRedis();

  it('shares a count Redisson set with a TTL, drains and releaseIfExists both ways, and brings back no count that expired', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const pool = client.semaphore('pool');
    expect(await redis.eval(RSemaphore.trySetPermitsTtl, 2, 'pool', 'redisson_sc:{pool}', 3, 'publish', 600)).toBe(1);
    expect(await pool.trySetPermits(5)).toBe(false);
    expect(await pool.availablePermits()).toBe(3);
    const permit = hold(pool.acquire$());
    await permit.lease;
    const countTtl = await redis.pttl('pool');
    expect(await redis.pttl('rxlock_holds:{pool}')).toBeLessThanOrEqual(countTtl);
    // rxlock's drain keeps the TTL Redisson set.
    expect(await pool.drainPermits()).toBe(2);
    expect(await redis.pttl('pool')).toBeGreaterThan(0);
    expect(await redis.eval(RSemaphore.releaseIfExists, 2, 'pool', 'redisson_sc:{pool}', 1, 'publish')).toBe(1);
    expect(await pool.releaseIfExists(1)).toBe(true);
    expect(await redis.get('pool')).toBe('2');
    expect(await eventually(async () => (await redis.exists('pool')) === 0, 1_000)).toBe(true);
    expect(await redis.eval(RSemaphore.releaseIfExists, 2, 'pool', 'redisson_sc:{pool}', 1, 'publish')).toBe(0);
    expect(await pool.releaseIfExists(1)).toBe(false);
    // The hold's record expired with the count: its release brings nothing back.
    permit.subscription.unsubscribe();
    await sleep(50);
    expect(await redis.exists('pool')).toBe(0);
  });

  it('Redisson reads a count rxlock set with a TTL as its own (and its drain drops the TTL, where rxlock’s keeps it)', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    expect(await client.semaphore('pool').trySetPermits(4, { ttlMs: 60_000 })).toBe(true);
    expect(await redis.eval(RSemaphore.trySetPermitsTtl, 2, 'pool', 'redisson_sc:{pool}', 9, 'publish', 600)).toBe(0);
    expect(await redis.pttl('pool')).toBeGreaterThan(59_000);
    expect(Number(await redis.eval(RSemaphore.drainPermits, 1, 'pool'))).toBe(4);
    expect(await redis.pttl('pool')).toBe(-1);
    expect(await client.semaphore('pool').delete()).toBe(true);
  });
});

describe('leasedSemaphore with Redisson’s RPermitExpirableSemaphore scripts of 3.41–4.x on the same Redis', () => {
  const scene = sharedRedis();
  const bytes = (id: string): Buffer => Buffer.from(id, 'hex');
  const now = (): number => Date.now();

  it('reads and moves the lease of a permit Redisson took, and Redisson reads the lease rxlock set', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(2);
    const id = 'c0ffee'.padEnd(32, '1');
    const acquired = await redis.eval(
      RPermitExpirableSemaphore.tryAcquire,
      3,
      'pool',
      '{pool}:timeout',
      'redisson_sc:{pool}',
      1,
      now() + 10_000,
      now(),
      NON_EXPIRABLE,
      'publish',
      bytes(id),
    );
    expect(acquired).toBe('OK');
    const left = await pool.getLeaseTime(id);
    expect(left).toBeGreaterThan(9_000);
    expect(left).toBeLessThanOrEqual(10_100);
    expect(await pool.updateLeaseTime(id, 60_000)).toBe(true);
    const redissonLeft = Number(
      await redis.eval(RPermitExpirableSemaphore.getLeaseTime, 3, 'pool', '{pool}:timeout', 'redisson_sc:{pool}', bytes(id), NON_EXPIRABLE, now(), 'publish'),
    );
    expect(redissonLeft).toBeGreaterThan(59_000);
    expect(await pool.updateLeaseTime(id, Infinity)).toBe(true);
    expect(
      await redis.eval(RPermitExpirableSemaphore.getLeaseTime, 3, 'pool', '{pool}:timeout', 'redisson_sc:{pool}', bytes(id), NON_EXPIRABLE, now(), 'publish'),
    ).toBe(-1);
    // Redisson moves it back to a lease; rxlock reads it.
    expect(
      await redis.eval(
        RPermitExpirableSemaphore.updateLeaseTime,
        3,
        'pool',
        '{pool}:timeout',
        'redisson_sc:{pool}',
        bytes(id),
        now() + 5_000,
        now(),
        'publish',
      ),
    ).toBe(1);
    expect(await pool.getLeaseTime(id)).toBeLessThanOrEqual(5_100);
    expect([await pool.acquiredPermits(), await pool.totalPermits()]).toEqual([1, 2]);
    expect(await pool.tryRelease([id])).toBe(1);
    expect(await redis.eval(RPermitExpirableSemaphore.acquiredPermits, 3, 'pool', '{pool}:timeout', 'redisson_sc:{pool}', now(), 'publish')).toBe(0);
    expect(await pool.delete()).toBe(true);
  });

  it('Redisson’s tryRelease(List) of rxlock’s permits gives them back, and rxlock’s holder learns it at its next renewal', async () => {
    const client = scene.client({ watchdogTimeoutMs: 300 });
    const redis = scene.server.client();
    const pool = client.leasedSemaphore('pool');
    await pool.trySetPermits(3);
    const holder = hold(pool.acquire$(2));
    const lease = await holder.lease;
    const released = await redis.eval(
      RPermitExpirableSemaphore.tryReleaseList,
      3,
      'pool',
      'redisson_sc:{pool}',
      '{pool}:timeout',
      2,
      now(),
      'publish',
      ...lease.permitIds.map(bytes),
    );
    expect(released).toBe(2);
    const lost = await Promise.race([holder.ended, sleep(1_000).then(() => 'still held')]);
    expect(lost).toBeInstanceOf(LockLostError);
    expect(await pool.availablePermits()).toBe(3);
    await pool.delete();
  });

  it('setPermits and getPermits agree both ways on the total of available and held permits', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const pool = client.leasedSemaphore('pool');
    await redis.eval(RPermitExpirableSemaphore.setPermits, 3, 'pool', 'redisson_sc:{pool}', '{pool}:timeout', 5, 'publish');
    expect(await pool.totalPermits()).toBe(5);
    const holder = hold(pool.acquire$(2, { leaseMs: 10_000 }));
    await holder.lease;
    expect(await pool.setPermits(3)).toBe(1);
    expect(await redis.eval(RPermitExpirableSemaphore.getPermits, 3, 'pool', '{pool}:timeout', 'redisson_sc:{pool}', now(), 'publish')).toBe(3);
    await redis.eval(RPermitExpirableSemaphore.setPermits, 3, 'pool', 'redisson_sc:{pool}', '{pool}:timeout', 4, 'publish');
    expect([await pool.availablePermits(), await pool.totalPermits()]).toEqual([2, 4]);
    holder.subscription.unsubscribe();
    expect(await eventually(async () => (await pool.availablePermits()) === 4)).toBe(true);
    await pool.delete();
  });
});

describe('groupLock$ with Redisson’s RedissonFasterMultiLock scripts on the same Redis', () => {
  const scene = sharedRedis();

  it('waits while Redisson holds a value and is woken by Redisson’s unlock message, long before the lease', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const peer = new GroupPeer(redis, 'class_100', 1);
    expect(await peer.tryLock([FIELD.Jack_001, FIELD.Mary_002])).toBeNull();
    await expect(firstValueFrom(client.groupLock$('class_100', ['Mary_002'], { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    const waiting = hold(client.groupLock$('class_100', ['Mary_002']));
    await sleep(200);
    const unlockedAt = performance.now();
    expect(await peer.unlock([FIELD.Jack_001, FIELD.Mary_002])).toBe(1);
    await waiting.lease;
    expect(performance.now() - unlockedAt).toBeLessThan(500);
    waiting.subscription.unsubscribe();
    expect(await eventually(async () => (await redis.exists('class_100')) === 0)).toBe(true);
  });

  it('keeps Redisson out while rxlock holds; Redisson may neither unlock nor renew it, and hears rxlock’s release', async () => {
    const client = scene.client({ clientId: 'node-svc' });
    const redis = scene.server.client();
    const peer = new GroupPeer(redis, 'class_100', 7);
    const held = hold(client.groupLock$('class_100', ['Jack_001', 'Mary_002'], { owner: 'w1' }));
    await held.lease;
    expect(await redis.hget('class_100', FIELD.Jack_001)).toBe('node-svc:w1');
    const ttl = await peer.tryLock([FIELD.Mary_002]);
    expect(ttl).toBeGreaterThan(29_000);
    expect(await peer.isLocked([FIELD.Mary_002])).toBe(1);
    expect(await peer.unlock([FIELD.Mary_002])).toBeNull();
    expect(await peer.renew([FIELD.Mary_002])).toBe(0);
    const listener = scene.server.client();
    await listener.subscribe(peer.channel);
    const message = new Promise<string>((resolve) => listener.on('message', (_channel: string, text: string) => resolve(text)));
    held.subscription.unsubscribe();
    expect(await message).toBe('1');
    expect(await peer.isLocked([FIELD.Jack_001, FIELD.Mary_002])).toBe(0);
    expect(await peer.tryLock([FIELD.Mary_002])).toBeNull();
    expect(await peer.unlock([FIELD.Mary_002])).toBe(1);
    listener.disconnect();
    expect(await redis.exists('class_100')).toBe(0);
  });

  it('takes over a value whose Redisson holder stopped renewing once its expiry passed, leaving Redisson’s unlock nothing', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const peer = new GroupPeer(redis, 'class_100', 3);
    expect(await peer.tryLock([FIELD.Jack_001], 400)).toBeNull();
    const started = performance.now();
    const held = hold(client.groupLock$('class_100', ['Jack_001']));
    await held.lease;
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(400 + 250);
    expect(await redis.hget('class_100', `${FIELD.Jack_001}:${peer.lockName}:expire_time`)).toBeNull();
    expect(await peer.unlock([FIELD.Jack_001])).toBeNull();
    held.subscription.unsubscribe();
    expect(await eventually(async () => (await redis.exists('class_100')) === 0)).toBe(true);
  });

  it('Redisson’s forceUnlock of rxlock’s values errors rxlock’s hold with LockLostError at its next renewal', async () => {
    const client = scene.client({ watchdogTimeoutMs: 300 });
    const redis = scene.server.client();
    const peer = new GroupPeer(redis, 'class_100', 9);
    const held = hold(client.groupLock$('class_100', ['Jack_001', 'Mary_002']));
    await held.lease;
    expect(await peer.forceUnlock([FIELD.Mary_002])).toBe(1);
    const lost = await Promise.race([held.ended, sleep(1_000).then(() => 'still held')]);
    expect(lost).toBeInstanceOf(LockLostError);
    expect(lost).toMatchObject({ reason: 'not-held' });
    expect(await eventually(async () => (await redis.exists('class_100')) === 0)).toBe(true);
  });

  it('Redisson’s watchdog renewal keeps rxlock waiting past the first lease', async () => {
    const client = scene.client();
    const redis = scene.server.client();
    const peer = new GroupPeer(redis, 'class_100', 4);
    expect(await peer.tryLock([FIELD.Mary_002], 300)).toBeNull();
    const waiting = hold(client.groupLock$('class_100', ['Mary_002'], { waitMs: 2_000 }));
    await sleep(150);
    // Redisson renews to its 30 s watchdog timeout: rxlock's retry at the old expiry finds it held.
    expect(await peer.renew([FIELD.Mary_002])).toBe(1);
    const outcome = await Promise.race([waiting.lease.then(() => 'acquired'), sleep(600).then(() => 'waiting')]);
    expect(outcome).toBe('waiting');
    expect(await peer.unlock([FIELD.Mary_002])).toBe(1);
    await waiting.lease;
    waiting.subscription.unsubscribe();
    expect(await eventually(async () => (await redis.exists('class_100')) === 0)).toBe(true);
  });
});
