import { firstValueFrom } from 'rxjs';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, LockKeyTypeError, LockTimeoutError, type Lease, type LockClient, type RedisLike } from '../../src/index.js';
import { HANDED_OVER } from '../../src/primitives/handedOver.js';
import { describeStores } from '../support/fixtures.js';
import { eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';

const queueOf = (name: string): string => `redisson_lock_queue:{${name}}`;
const timeoutsOf = (name: string): string => `redisson_lock_timeout:{${name}}`;

/** A subscription to `fairLock$` kept open until `release()`. */
function take(client: LockClient, name: string, options?: Parameters<LockClient['fairLock$']>[1]): { granted: Promise<Lease>; release(): void } {
  let release = (): void => undefined;
  const granted = new Promise<Lease>((resolve, reject) => {
    const subscription = client.fairLock$(name, options).subscribe({ next: resolve, error: reject });
    release = () => subscription.unsubscribe();
  });
  // A test that fails midway leaves turns that reject when the client closes: whoever awaits one still sees it.
  granted.catch(() => undefined);
  return { granted, release: () => release() };
}

describeStores('fairLock$ contract', (fixture) => {
  it('answers HANDED_OVER to the release that gave the lock straight to the head of the line, and 2 to one nobody waited for', async () => {
    const f = fixture();
    const holder = take(f.client(), 'answer');
    await holder.granted;
    const waiter = take(f.client(), 'answer');
    expect(await eventually(async () => (await f.lrange(queueOf('answer'))).length === 1)).toBe(true);
    // The waiter listens on its channel before its first attempt; the attempt's reply is what queued it.
    await sleep(50);
    holder.release();
    await waiter.granted;
    // The grant may reach the waiter's client before the release's reply reaches the holder's.
    expect(await eventually(() => Promise.resolve(f.replies('fairLock.release').length === 1))).toBe(true);
    waiter.release();
    expect(await eventually(() => Promise.resolve(f.replies('fairLock.release').length === 2))).toBe(true);
    // On a cluster with classic pub/sub a release cannot see whether the head's client listens, so it never hands over.
    expect(f.replies('fairLock.release')).toEqual([f.directHandOff ? HANDED_OVER : 2, 2]);
  });

  it('grants 8 clients that start 100 ms apart in exactly that order', async () => {
    const f = fixture();
    const holder = take(f.client(), 'order');
    await holder.granted;
    const order: number[] = [];
    const waiters = Array.from({ length: 8 }, () => f.client());
    const turns: Promise<void>[] = [];
    for (const [index, client] of waiters.entries()) {
      const turn = take(client, 'order');
      turns.push(
        turn.granted.then(async () => {
          order.push(index);
          await sleep(5);
          turn.release();
        }),
      );
      await sleep(100);
    }
    expect(await f.lrange(queueOf('order'))).toHaveLength(8);
    holder.release();
    await Promise.all(turns);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('serves contending clients in strict rotation, one holder at a time', async () => {
    const f = fixture();
    const clients = Array.from({ length: 4 }, () => f.client());
    const sequence: number[] = [];
    let inside = 0;
    let overlaps = 0;
    await Promise.all(
      clients.map(async (client, index) => {
        for (let i = 0; i < 6; i++) {
          const turn = take(client, 'rotation');
          await turn.granted;
          if (++inside > 1) overlaps++;
          sequence.push(index);
          // The first holder lets go only once the other three wait: a client still joining then is no rotation.
          if (sequence.length === 1) expect(await eventually(async () => (await f.lrange(queueOf('rotation'))).length === 3, 5_000)).toBe(true);
          await sleep(3);
          inside--;
          turn.release();
        }
      }),
    );
    expect(overlaps).toBe(0);
    // Once everybody waits, the releaser joins the end of the line: the first round repeats.
    const round = sequence.slice(0, 4);
    expect(new Set(round).size).toBe(4);
    expect(sequence).toEqual([...round, ...round, ...round, ...round, ...round, ...round]);
  });

  it('does not let a dead waiter stall the line beyond its deadline', async () => {
    const f = fixture();
    const settings = { fairLockWaiterTimeoutMs: 400 };
    const holder = take(f.client(settings), 'dead');
    await holder.granted;
    // What a waiter that died leaves behind: a place in the line and a deadline, nothing that answers.
    const ghostDeadline = (await f.serverTime()) + 600;
    await f.setList(queueOf('dead'), ['ghost-client:1']);
    await f.zadd(timeoutsOf('dead'), ghostDeadline, 'ghost-client:1');
    const live = take(f.client(settings), 'dead');
    expect(await eventually(async () => (await f.lrange(queueOf('dead'))).length === 2)).toBe(true);
    holder.release();
    await live.granted;
    const grantedAt = await f.serverTime();
    // Order is kept while the dead waiter could still be alive, and not a share longer than its deadline.
    expect(grantedAt).toBeGreaterThanOrEqual(ghostDeadline);
    expect(grantedAt).toBeLessThan(ghostDeadline + settings.fairLockWaiterTimeoutMs);
    expect(await f.lrange(queueOf('dead'))).toEqual([]);
    live.release();
  });

  it('takes a waiter that gives up out of the line at once, and shrinks the deadlines behind it by one share', async () => {
    const f = fixture();
    const share = 10_000;
    const clients = Array.from({ length: 4 }, () => f.client({ fairLockWaiterTimeoutMs: share }));
    const [holderClient, a, b, c] = clients as [LockClient, LockClient, LockClient, LockClient];
    const holder = take(holderClient, 'leave');
    await holder.granted;
    const turns = [];
    for (const [index, client] of [a, b, c].entries()) {
      turns.push(take(client, 'leave'));
      expect(await eventually(async () => (await f.lrange(queueOf('leave'))).length === index + 1)).toBe(true);
    }
    const [fieldA, fieldB, fieldC] = (await f.lrange(queueOf('leave'))) as [string, string, string];
    expect([fieldA, fieldB, fieldC].map((field) => field.split(':')[0])).toEqual([a.clientId, b.clientId, c.clientId]);
    const before = [await f.zscore(timeoutsOf('leave'), fieldB), await f.zscore(timeoutsOf('leave'), fieldC)] as [number, number];
    turns[0]!.release();
    expect(await eventually(async () => (await f.lrange(queueOf('leave'))).length === 2)).toBe(true);
    expect(await f.lrange(queueOf('leave'))).toEqual([fieldB, fieldC]);
    expect(await f.zscore(timeoutsOf('leave'), fieldA)).toBeNull();
    // Each moved up one place: one share less (a waiter may have refreshed its place since: a few ms more).
    const after = [await f.zscore(timeoutsOf('leave'), fieldB), await f.zscore(timeoutsOf('leave'), fieldC)] as [number, number];
    for (const [i, deadline] of after.entries()) {
      expect(deadline).toBeGreaterThanOrEqual(before[i]! - share);
      expect(deadline).toBeLessThan(before[i]! - share / 2);
    }
    // A waiter whose waitMs runs out leaves too.
    await expect(firstValueFrom(a.fairLock$('leave', { waitMs: 150 }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await eventually(async () => (await f.lrange(queueOf('leave'))).length === 2)).toBe(true);
    expect(await f.lrange(queueOf('leave'))).toEqual([fieldB, fieldC]);
    holder.release();
    await turns[1]!.granted;
    turns[1]!.release();
    await turns[2]!.granted;
    turns[2]!.release();
  });

  it('leaves no key behind when the last waiter in line gives up after a grant was counted', async () => {
    const f = fixture();
    const holder = take(f.client(), 'tidy');
    await holder.granted;
    const first = take(f.client(), 'tidy');
    expect(await eventually(async () => (await f.lrange(queueOf('tidy'))).length === 1)).toBe(true);
    const second = take(f.client(), 'tidy');
    expect(await eventually(async () => (await f.lrange(queueOf('tidy'))).length === 2)).toBe(true);
    // The head leaves the line with the lock while another waits: the grant is counted.
    holder.release();
    await first.granted;
    // The one behind gives up: the line is empty.
    second.release();
    expect(await eventually(async () => (await f.lrange(queueOf('tidy'))).length === 0)).toBe(true);
    first.release();
    expect(await eventually(async () => (await f.keys()).length === 0)).toBe(true);
  });

  it('tries once with waitMs 0 without joining the line', async () => {
    const f = fixture();
    const holder = take(f.client(), 'once');
    await holder.granted;
    await expect(firstValueFrom(f.client().fairLock$('once', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await f.lrange(queueOf('once'))).toEqual([]);
    holder.release();
  });

  it('stores Redisson’s layout and re-enters for the same owner', async () => {
    const f = fixture();
    const client = f.client({ clientId: 'node-1' });
    const other = f.client({ clientId: 'node-2' });
    const first = take(client, 'layout', { owner: 'job' });
    await first.granted;
    const second = take(client, 'layout', { owner: 'job' });
    await second.granted;
    expect(await f.hget('layout', 'node-1:job')).toBe('2');
    const waiter = take(other, 'layout', { owner: 'w' });
    expect(await eventually(async () => (await f.lrange(queueOf('layout'))).length === 1)).toBe(true);
    expect(await f.lrange(queueOf('layout'))).toEqual(['node-2:w']);
    const deadline = await f.zscore(timeoutsOf('layout'), 'node-2:w');
    expect(deadline).toBeGreaterThan(await f.serverTime());
    expect(await f.keys()).toEqual(expect.arrayContaining(['layout', queueOf('layout'), timeoutsOf('layout'), 'rxlock_fair_waiters:{layout}']));
    first.release();
    expect(await eventually(async () => (await f.hget('layout', 'node-1:job')) === '1')).toBe(true);
    second.release();
    await waiter.granted;
    expect(await f.hget('layout', 'node-2:w')).toBe('1');
    waiter.release();
  });

  it('excludes lock$ holders of the same name (one hash)', async () => {
    const f = fixture();
    const plain = await f.client().acquire('shared');
    await expect(firstValueFrom(f.client().fairLock$('shared', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    await plain.release();
    const fair = take(f.client(), 'shared');
    await fair.granted;
    await expect(firstValueFrom(f.client().lock$('shared', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    fair.release();
  });

  it('forceUnlock deletes a held fair lock and wakes the head of the line at once', async () => {
    const f = fixture();
    const holder = take(f.client({ watchdogTimeoutMs: 30_000 }), 'forced-fair');
    await holder.granted;
    // A long waiter timeout: the head would otherwise poll for the lock by itself within a third of it.
    const waiter = take(f.client({ fairLockWaiterTimeoutMs: 60_000 }), 'forced-fair');
    expect(await eventually(async () => (await f.lrange(queueOf('forced-fair'))).length === 1)).toBe(true);
    await sleep(50);
    const forcedAt = performance.now();
    expect(await f.client().forceUnlock('forced-fair')).toBe(true);
    await waiter.granted;
    expect(performance.now() - forcedAt).toBeLessThan(2_000);
    expect(await f.lrange(queueOf('forced-fair'))).toEqual([]);
    waiter.release();
    holder.release();
  });

  it('refuses a key of another type with LockKeyTypeError naming it, and leaves it untouched', async () => {
    const f = fixture();
    await f.setString(queueOf('typed'), 'payload');
    const error = await firstValueFrom(f.client().fairLock$('typed')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockKeyTypeError);
    expect((error as LockKeyTypeError).key).toBe(queueOf('typed'));
    expect(await f.get(queueOf('typed'))).toBe('payload');
    await f.flush();
  });

  it('refuses another application’s hash without a TTL (a value that is no hold count) instead of waiting for ever, writing nothing', async () => {
    const f = fixture();
    await f.setHash('user:44', 'name', 'Ann');
    const error = await firstValueFrom(f.client().fairLock$('user:44', { waitMs: 2_000 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockKeyTypeError);
    expect([(error as LockKeyTypeError).key, (error as LockKeyTypeError).actualType]).toEqual(['user:44', 'hash that is not a lock']);
    expect([await f.hgetall('user:44'), await f.pttl('user:44'), await f.keys()]).toEqual([{ name: 'Ann' }, -1, ['user:44']]);
    await f.flush();
  });

  it('releases a lock whose line key turned into another type, without release-failed; the next acquire names the key', async () => {
    const f = fixture();
    const client = f.client();
    const ends: string[] = [];
    client.events$.subscribe((event) => {
      if (event.type === 'released') ends.push('released');
      if (event.type === 'release-failed') ends.push(event.error.message);
    });
    const holder = take(client, 'line-turned');
    await holder.granted;
    await f.setString(queueOf('line-turned'), 'payload');
    holder.release();
    expect(await eventually(() => ends.length > 0)).toBe(true);
    expect(ends).toEqual(['released']);
    expect(await f.keys()).toEqual([queueOf('line-turned')]);
    const error = await firstValueFrom(client.fairLock$('line-turned')).catch((e: unknown) => e);
    expect((error as LockKeyTypeError).key).toBe(queueOf('line-turned'));
    expect(await f.get(queueOf('line-turned'))).toBe('payload');
    await f.flush();
  });

  it('rejects bad input with a typed error and sends nothing', async () => {
    const f = fixture();
    const client = f.client();
    const bad: [unknown, unknown, ErrorConstructor][] = [
      ['', undefined, TypeError],
      [42, undefined, TypeError],
      ['a', { waitMs: -1 }, RangeError],
      ['a', { leaseMs: Number.NaN }, RangeError],
      ['a', { owner: 'x:y' }, TypeError],
      ['a', { fencing: 'yes' }, TypeError],
      ['a', { wait: 10 }, TypeError],
    ];
    for (const [name, options, type] of bad) {
      const error = await firstValueFrom(client.fairLock$(name as string, options as never)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
    }
    expect(f.commands()).toBe(0);
  });
});

/**
 * Redisson's RFairLock (3.x/4.x, EVAL_LONG tryLock and unlock), paraphrased from RedissonFairLock.java, so the
 * tests can show that a Java waiter and rxlock waiters share one line in order.
 */
class RedissonFairPeer {
  readonly #redis: Redis;
  readonly #waitMs: number;

  constructor(redis: Redis, waitMs: number) {
    this.#redis = redis;
    this.#waitMs = waitMs;
  }

  /** null when acquired, else the ttl Redisson would sleep for. */
  async tryLock(name: string, field: string, leaseMs = 30_000): Promise<number | null> {
    const reply = await this.#redis.eval(
      `while true do
         local first = redis.call('lindex', KEYS[2], 0)
         if first == false then break end
         local timeout = tonumber(redis.call('zscore', KEYS[3], first))
         if timeout <= tonumber(ARGV[4]) then
           redis.call('zrem', KEYS[3], first); redis.call('lpop', KEYS[2])
         else break end
       end
       if (redis.call('exists', KEYS[1]) == 0) and ((redis.call('exists', KEYS[2]) == 0) or (redis.call('lindex', KEYS[2], 0) == ARGV[2])) then
         redis.call('lpop', KEYS[2]); redis.call('zrem', KEYS[3], ARGV[2])
         local keys = redis.call('zrange', KEYS[3], 0, -1)
         for i = 1, #keys, 1 do redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), keys[i]) end
         redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1])
         return nil
       end
       if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
         redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1])
         return nil
       end
       local timeout = redis.call('zscore', KEYS[3], ARGV[2])
       if timeout ~= false then return timeout - tonumber(ARGV[3]) - tonumber(ARGV[4]) end
       local lastThreadId = redis.call('lindex', KEYS[2], -1)
       local ttl
       if lastThreadId ~= false and lastThreadId ~= ARGV[2] then
         ttl = tonumber(redis.call('zscore', KEYS[3], lastThreadId)) - tonumber(ARGV[4])
       else
         ttl = redis.call('pttl', KEYS[1])
       end
       local timeout = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
       if redis.call('zadd', KEYS[3], timeout, ARGV[2]) == 1 then redis.call('rpush', KEYS[2], ARGV[2]) end
       return ttl`,
      3,
      name,
      queueOf(name),
      timeoutsOf(name),
      leaseMs,
      field,
      this.#waitMs,
      Date.now(),
    );
    return reply === null ? null : Number(reply);
  }

  async unlock(name: string, field: string): Promise<number | null> {
    const reply = await this.#redis.eval(
      `while true do
         local first = redis.call('lindex', KEYS[2], 0)
         if first == false then break end
         local timeout = tonumber(redis.call('zscore', KEYS[3], first))
         if timeout <= tonumber(ARGV[4]) then
           redis.call('zrem', KEYS[3], first); redis.call('lpop', KEYS[2])
         else break end
       end
       if redis.call('exists', KEYS[1]) == 0 then
         local nextThreadId = redis.call('lindex', KEYS[2], 0)
         if nextThreadId ~= false then redis.call('publish', KEYS[4] .. ':' .. nextThreadId, ARGV[1]) end
         return 1
       end
       if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end
       local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
       if counter > 0 then redis.call('pexpire', KEYS[1], ARGV[2]); return 0 end
       redis.call('del', KEYS[1])
       local nextThreadId = redis.call('lindex', KEYS[2], 0)
       if nextThreadId ~= false then redis.call('publish', KEYS[4] .. ':' .. nextThreadId, ARGV[1]) end
       return 1`,
      4,
      name,
      queueOf(name),
      timeoutsOf(name),
      `redisson_lock__channel:{${name}}`,
      0,
      30_000,
      field,
      Date.now(),
    );
    return reply === null ? null : Number(reply);
  }
}

describe('fairLock$ on a real redis-server', () => {
  const server = redisServerForSuite();
  const clients: LockClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    const admin = server.client();
    expect(await eventually(async () => (await admin.keys('*')).length === 0, 2_000)).toBe(true);
    await admin.flushall();
  });

  const client = (settings: Omit<Parameters<typeof createLockClient>[0], 'redis' | 'store'> = {}, redis: RedisLike = server.client()): LockClient => {
    const created = createLockClient({ redis, ...settings });
    clients.push(created);
    return created;
  };

  it('shares one line with Redisson waiters: a Java waiter between two rxlock waiters is served in its turn', async () => {
    const admin = server.client();
    const peer = new RedissonFairPeer(server.client(), 10_000);
    const listener = server.client();
    const javaField = 'b6f1f7ae-redisson-peer:1';
    const heard: string[] = [];
    await listener.subscribe(`redisson_lock__channel:{mixed}:${javaField}`);
    listener.on('message', (_channel: string, message: string) => heard.push(message));

    const holder = take(client({ fairLockWaiterTimeoutMs: 10_000 }), 'mixed');
    await holder.granted;
    const first = take(client({ fairLockWaiterTimeoutMs: 10_000 }), 'mixed');
    expect(await eventually(async () => (await admin.llen(queueOf('mixed'))) === 1)).toBe(true);
    expect(await peer.tryLock('mixed', javaField)).toBeGreaterThan(0);
    const last = take(client({ fairLockWaiterTimeoutMs: 10_000 }), 'mixed');
    expect(await eventually(async () => (await admin.llen(queueOf('mixed'))) === 3)).toBe(true);

    holder.release();
    await first.granted;
    first.release();
    // Redisson's waiter hears Redisson's unlock message on its own channel, and only it.
    expect(await eventually(() => heard.length === 1)).toBe(true);
    expect(heard).toEqual(['0']);
    let lastGranted = false;
    void last.granted.then(() => (lastGranted = true));
    await sleep(100);
    expect(lastGranted).toBe(false);
    expect(await peer.tryLock('mixed', javaField)).toBeNull();
    expect(await peer.unlock('mixed', javaField)).toBe(1);
    await last.granted;
    last.release();
    listener.disconnect();
  });

  it('keeps a Redisson waiter that took the lock and queued again at once in line until its own deadline', async () => {
    const share = 1_000;
    const settings = { fairLockWaiterTimeoutMs: share };
    const admin = server.client();
    const peer = new RedissonFairPeer(server.client(), share);
    const javaField = 'b6f1f7ae-redisson-peer:1';
    const lineLength = async (): Promise<number> => admin.llen(queueOf('rejoin'));
    const holder = take(client(settings), 'rejoin');
    await holder.granted;
    const first = take(client(settings), 'rejoin');
    expect(await eventually(async () => (await lineLength()) === 1)).toBe(true);
    expect(await peer.tryLock('rejoin', javaField)).toBeGreaterThan(0);
    const last = take(client(settings), 'rejoin');
    expect(await eventually(async () => (await lineLength()) === 3)).toBe(true);
    holder.release();
    // rxlock's grant to the first waiter registers the Redisson waiter behind it.
    await first.granted;
    first.release();
    expect(await eventually(async () => (await peer.tryLock('rejoin', javaField)) === null)).toBe(true);
    // A Java thread that unlocks and locks again straight away: both scripts in one write, before the next rxlock attempt.
    const [unlocked, queuedAgain] = await Promise.all([peer.unlock('rejoin', javaField), peer.tryLock('rejoin', javaField)]);
    expect([unlocked, typeof queuedAgain]).toEqual([1, 'number']);
    await last.granted;
    const tail = take(client(settings), 'rejoin');
    expect(await eventually(async () => (await lineLength()) === 2)).toBe(true);
    // Charged with the grants of its previous wait, the Redisson waiter's deadline would be 2 shares before its score.
    const score = Number(await admin.zscore(timeoutsOf('rejoin'), javaField));
    const [seconds, micros] = await admin.time();
    await sleep(score - 2 * share + 300 - (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)));
    const singleTry = await firstValueFrom(client(settings).fairLock$('rejoin', { waitMs: 0 })).catch((e: unknown) => e);
    expect(singleTry).toBeInstanceOf(LockTimeoutError);
    expect(await admin.lrange(queueOf('rejoin'), 0, -1)).toContain(javaField);
    last.release();
    expect(await eventually(async () => (await peer.tryLock('rejoin', javaField)) === null)).toBe(true);
    expect(await peer.unlock('rejoin', javaField)).toBe(1);
    await tail.granted;
    tail.release();
  });

  it('passes over an rxlock waiter whose client died once its deadline passed', async () => {
    const settings = { fairLockWaiterTimeoutMs: 500 };
    const holder = take(client(settings), 'crash');
    await holder.granted;
    // The dying client's connections are ours to cut: its command connection and its pub/sub duplicate.
    const dying = server.client();
    const connections: Redis[] = [dying];
    const duplicate = dying.duplicate.bind(dying);
    dying.duplicate = () => {
      const connection = duplicate();
      connection.on('error', () => undefined);
      connections.push(connection);
      return connection;
    };
    const doomed = take(client(settings, dying), 'crash');
    doomed.granted.catch(() => undefined);
    const admin = server.client();
    expect(await eventually(async () => (await admin.llen(queueOf('crash'))) === 1)).toBe(true);
    const live = take(client(settings), 'crash');
    expect(await eventually(async () => (await admin.llen(queueOf('crash'))) === 2)).toBe(true);
    for (const connection of connections) connection.disconnect();
    expect(
      await eventually(async () => (await admin.pubsub('NUMSUB', `redisson_lock__channel:{crash}:${(await admin.lindex(queueOf('crash'), 0))!}`))[1] === 0),
    ).toBe(true);
    const [doomedField] = await admin.lrange(queueOf('crash'), 0, 0);
    const doomedDeadline = Number(await admin.zscore(timeoutsOf('crash'), doomedField!));
    holder.release();
    await live.granted;
    const [seconds, micros] = await admin.time();
    const grantedAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect(grantedAt).toBeGreaterThanOrEqual(doomedDeadline);
    expect(grantedAt).toBeLessThan(doomedDeadline + settings.fairLockWaiterTimeoutMs);
    live.release();
  });
});
