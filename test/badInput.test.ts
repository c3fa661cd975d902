import { Redis } from 'ioredis';
import { asyncScheduler, firstValueFrom, isObservable, type Observable } from 'rxjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ClientClosedError,
  createLockClient,
  createRedlockClient,
  LockBackendError,
  LockKeyTypeError,
  LockLostError,
  LockTimeoutError,
  type LockClient,
  type LockOptions,
  type RedisLike,
} from '../src/index.js';
import { createMemoryStore, MemoryStore, type MemoryStoreOptions } from '../src/testing.js';
import { eventually } from './support/leaks.js';
import { freePort } from './support/redisServer.js';
import { countingCalls } from './support/countingCalls.js';
import { redisServerForSuite } from './support/suiteRedis.js';

/**
 * Counts the scripts a client sends, so a test can show that bad input sent nothing. EVAL is not counted:
 * the store sends it only as the NOSCRIPT fallback of an EVALSHA that was.
 */
function countingRedis(redis: Redis): { redis: RedisLike; scripts: () => number } {
  const counted = new Set<PropertyKey>(['eval', 'evalsha', 'pipeline']);
  const { redis: proxy, calls } = countingCalls(redis, (method) => counted.has(method));
  return { redis: proxy, scripts: calls };
}

type Call = (client: LockClient) => Observable<unknown> | Promise<unknown>;

interface BadCase {
  /** What is wrong, as the README table lists it. */
  readonly input: string;
  readonly call: Call;
  readonly error: abstract new (...args: never[]) => Error;
  /** Words the message must contain: the lock's name and what was wrong. */
  readonly mentions: readonly string[];
  readonly code?: string;
  /** The case is hostile state on the server: one script is sent, but it must write nothing. */
  readonly sendsScript?: boolean;
  readonly setup?: (admin: Redis) => Promise<unknown>;
}

const lock =
  (name: unknown, options?: unknown): Call =>
  (client) =>
    client.lock$(name as string, options as LockOptions);

const cases: readonly BadCase[] = [
  { input: 'empty name', call: lock(''), error: TypeError, mentions: ['lock$', 'it is empty'] },
  { input: 'name is a number', call: lock(42), error: TypeError, mentions: ['the name must be a string', 'got 42'] },
  { input: 'name is null', call: lock(null), error: TypeError, mentions: ['the name must be a string', 'got null'] },
  { input: 'name of 513 characters', call: lock('n'.repeat(513)), error: TypeError, mentions: ['longer than 512'] },
  { input: 'name with a NUL byte', call: lock('a\u0000b'), error: TypeError, mentions: ['control character'] },
  { input: 'name with an unpaired surrogate', call: lock('a\uD800'), error: TypeError, mentions: ['unpaired UTF-16 surrogate'] },
  { input: 'name with "{" only', call: lock('orders{eu'), error: TypeError, mentions: ['"orders{eu"', 'without a closing "}"'] },
  { input: 'name with "}" only', call: lock('orders}'), error: TypeError, mentions: ['"orders}"', '"}" without a "{"'] },
  { input: 'name with an empty hash tag "{}"', call: lock('orders{}'), error: TypeError, mentions: ['"orders{}"', 'empty hash tag'] },
  { input: 'negative leaseMs', call: lock('d', { leaseMs: -1 }), error: RangeError, mentions: ['lock$("d")', '"leaseMs"', 'got -1'] },
  { input: 'zero leaseMs', call: lock('d', { leaseMs: 0 }), error: RangeError, mentions: ['"leaseMs"', 'at least 10', 'got 0'] },
  { input: 'fractional leaseMs', call: lock('d', { leaseMs: 1500.5 }), error: RangeError, mentions: ['"leaseMs"', 'integer', 'got 1500.5'] },
  { input: 'NaN waitMs', call: lock('d', { waitMs: NaN }), error: RangeError, mentions: ['"waitMs"', 'got NaN'] },
  { input: 'infinite leaseMs', call: lock('d', { leaseMs: Infinity }), error: RangeError, mentions: ['"leaseMs"', 'got Infinity'] },
  { input: 'negative waitMs', call: lock('d', { waitMs: -5 }), error: RangeError, mentions: ['"waitMs"', 'got -5'] },
  { input: 'waitMs as a string', call: lock('d', { waitMs: '100' }), error: TypeError, mentions: ['"waitMs"', 'number of milliseconds'] },
  { input: 'unknown option', call: lock('d', { timeout: 100 }), error: TypeError, mentions: ['lock$("d")', 'unknown option "timeout"'] },
  { input: 'options not an object', call: lock('d', 5), error: TypeError, mentions: ['options must be an object', 'got 5'] },
  { input: 'fencing not a boolean', call: lock('d', { fencing: 'yes' }), error: TypeError, mentions: ['"fencing"', 'boolean'] },
  { input: 'signal not an AbortSignal', call: lock('d', { signal: {} }), error: TypeError, mentions: ['"signal"', 'AbortSignal'] },
  {
    input: 'owner with ":" (forges another client’s `<clientId>:<owner>` field)',
    call: lock('d', { owner: 'other-client:worker-1' }),
    error: TypeError,
    mentions: ['"owner"', 'forge another client', '"other-client:worker-1"'],
  },
  {
    input: 'owner in the generated-owner format "#1"',
    call: lock('d', { owner: '#1' }),
    error: TypeError,
    mentions: ['"owner"', 'reserved for generated owners'],
  },
  { input: 'empty owner', call: lock('d', { owner: '' }), error: TypeError, mentions: ['"owner"'] },
  { input: 'holdCount with an owner containing ":"', call: (client) => client.holdCount('d', 'a:b'), error: TypeError, mentions: ['holdCount', '"owner"'] },
  {
    input: 'withLock$ work that is not a function',
    call: (client) => client.withLock$('d', 'work' as never),
    error: TypeError,
    mentions: ['withLock$("d")', 'work must be a function'],
  },
  {
    input: 'more leased permits than one acquire$ may take',
    call: (client) => client.leasedSemaphore('p').acquire$(10_001),
    error: RangeError,
    mentions: ['leasedSemaphore("p").acquire$', '"permits" must be at most 10000', 'got 10001'],
  },
  { input: 'acquire with a bad name', call: (client) => client.acquire(''), error: TypeError, mentions: ['acquire', 'it is empty'] },
  { input: 'isLocked with a bad name', call: (client) => client.isLocked('x}'), error: TypeError, mentions: ['isLocked', '"x}"'] },
  {
    input: 'the lock key holds a string',
    setup: (admin) => admin.set('str-key', 'payload'),
    call: lock('str-key'),
    error: LockKeyTypeError,
    mentions: ['"str-key"', 'holds a string', 'left untouched'],
    sendsScript: true,
  },
  {
    input: 'the lock key holds a list',
    setup: (admin) => admin.rpush('list-key', 'a', 'b'),
    call: lock('list-key'),
    error: LockKeyTypeError,
    mentions: ['"list-key"', 'holds a list'],
    sendsScript: true,
  },
  {
    input: 'a lock name with spaces whose key holds a string',
    setup: (admin) => admin.set('my lock', 'payload'),
    call: lock('my lock'),
    error: LockKeyTypeError,
    mentions: ['key "my lock"', 'holds a string'],
    sendsScript: true,
  },
  {
    input: 'the fencing counter holds a list',
    setup: (admin) => admin.rpush('redisson_lock_token:{fenced-list}', 'x'),
    call: lock('fenced-list', { fencing: true }),
    error: LockKeyTypeError,
    mentions: ['key "redisson_lock_token:{fenced-list}" of "fenced-list"', 'holds a list'],
    sendsScript: true,
  },
  {
    input: 'the fencing counter is not a number',
    setup: (admin) => admin.set('redisson_lock_token:{fenced-text}', 'abc'),
    call: lock('fenced-text', { fencing: true }),
    error: LockBackendError,
    code: 'other',
    mentions: ['"fenced-text"', 'not an integer'],
    sendsScript: true,
  },
  {
    input: 'the lock key holds a set',
    setup: (admin) => admin.sadd('set-key', 'm'),
    call: (client) => client.acquire('set-key'),
    error: LockKeyTypeError,
    mentions: ['"set-key"', 'holds a set'],
    sendsScript: true,
  },
  {
    input: '`forceUnlock` of a name that is not a lock (a string)',
    setup: (admin) => admin.set('not-a-lock', 'v'),
    call: (client) => client.forceUnlock('not-a-lock'),
    error: LockKeyTypeError,
    mentions: ['"not-a-lock"', 'holds a string'],
    sendsScript: true,
  },
  {
    input: '`forceUnlock` of another application’s hash (values that are no hold counts)',
    setup: (admin) => admin.hset('user:42', 'name', 'Ann', 'email', 'a@b'),
    call: (client) => client.forceUnlock('user:42'),
    error: LockKeyTypeError,
    mentions: ['key "user:42" of "user:42"', 'holds a hash that is not a lock'],
    sendsScript: true,
  },
  {
    input: 'the lock key is another application’s hash without a TTL',
    setup: (admin) => admin.hset('user:43', 'name', 'Bob'),
    call: lock('user:43'),
    error: LockKeyTypeError,
    mentions: ['"user:43"', 'holds a hash that is not a lock'],
    sendsScript: true,
  },
  {
    input: 'a semaphore’s count is a string but not an integer',
    setup: (admin) => admin.set('cached', '{"a":1}'),
    call: (client) => client.semaphore('cached').addPermits(1),
    error: LockKeyTypeError,
    mentions: ['key "cached" of "cached"', 'holds a string that is not an integer'],
    sendsScript: true,
  },
  {
    input: 'a latch’s count is a string but not an integer',
    setup: (admin) => admin.set('cached-gate', '{"a":1}'),
    call: (client) => client.latch('cached-gate').await$(),
    error: LockKeyTypeError,
    mentions: ['"cached-gate"', 'holds a string that is not an integer'],
    sendsScript: true,
  },
  {
    input: '`holdCount` of a name that holds a list',
    setup: (admin) => admin.rpush('list-key2', 'x'),
    call: (client) => client.holdCount('list-key2'),
    error: LockKeyTypeError,
    mentions: ['"list-key2"', 'holds a list'],
    sendsScript: true,
  },
];

describe('bad input: a typed error naming what was wrong, nothing written to Redis, the client still usable', () => {
  const server = redisServerForSuite(['--enable-debug-command', 'yes']);
  let admin: Redis;
  let client: LockClient;
  let scripts: () => number;

  beforeAll(() => {
    admin = server.client();
    const counting = countingRedis(server.client());
    scripts = counting.scripts;
    client = createLockClient({ redis: counting.redis, clientId: 'bad-input' });
  });
  afterAll(async () => {
    await client.close();
  });
  beforeEach(async () => {
    await admin.flushall();
  });

  const digest = async () => String(await admin.call('DEBUG', 'DIGEST'));

  async function stillUsable(): Promise<void> {
    expect(await client.withLock('still-usable', () => 'ok')).toBe('ok');
    expect(await admin.exists('still-usable')).toBe(0);
  }

  /** Runs the call; it must not throw synchronously but deliver the error as the stream's (or promise's) error. */
  async function failureOf(call: Call, on: LockClient): Promise<Error> {
    let pending: Observable<unknown> | Promise<unknown>;
    try {
      pending = call(on);
    } catch (error) {
      throw new Error(`threw synchronously instead of delivering the error: ${String(error)}`, { cause: error });
    }
    const outcome = await (isObservable(pending) ? firstValueFrom(pending) : pending).then(
      (value: unknown) => new Error(`expected an error, got ${String(value)}`),
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(Error);
    return outcome as Error;
  }

  for (const badCase of cases) {
    it(badCase.input, async () => {
      await badCase.setup?.(admin);
      const before = { digest: await digest(), scripts: scripts() };
      const error = await failureOf(badCase.call, client);
      expect(error).toBeInstanceOf(badCase.error);
      for (const words of badCase.mentions) expect(error.message).toContain(words);
      if (badCase.code !== undefined) expect(error).toHaveProperty('code', badCase.code);
      expect(scripts() - before.scripts).toBe(badCase.sendsScript === true ? 1 : 0);
      expect(await digest()).toBe(before.digest);
      await stillUsable();
      console.info(`bad input | ${badCase.input} | ${error.constructor.name} | ${error.message}`);
    });
  }

  it('releasing twice: the second release resolves with the same outcome and sends nothing', async () => {
    const handle = await client.acquire('twice');
    await handle.release();
    const before = { digest: await digest(), scripts: scripts() };
    await expect(handle.release()).resolves.toBeUndefined();
    expect(scripts()).toBe(before.scripts);
    expect(await digest()).toBe(before.digest);
    await stillUsable();
  });

  it('a reentrant owner’s holds key turned into a string: its release fails with LockKeyTypeError naming that key, and writes nothing', async () => {
    const handle = await client.acquire('reentrant', { owner: 'worker-1', leaseMs: 60_000 });
    await admin.set('rxlock_holds:{reentrant}', 'payload');
    const before = { digest: await digest(), scripts: scripts() };
    const error = await handle.release().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LockKeyTypeError);
    expect((error as Error).message).toContain('key "rxlock_holds:{reentrant}" of "reentrant" holds a string');
    expect(scripts() - before.scripts).toBe(1);
    expect(await digest()).toBe(before.digest);
    await stillUsable();
    console.info(`bad input | a reentrant owner’s holds key holds a string | LockKeyTypeError | ${(error as Error).message}`);
  });

  it('releasing a lock now held by another owner: LockLostError, and the other owner’s hold is untouched', async () => {
    const other = createLockClient({ redis: server.client(), clientId: 'other' });
    const mine = await client.acquire('taken', { leaseMs: 60_000 });
    await admin.del('taken', 'rxlock_holds:{taken}');
    const theirs = await other.acquire('taken', { leaseMs: 60_000 });
    const before = await digest();
    const error = await mine.release().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LockLostError);
    expect((error as Error).message).toContain('lost "taken" held by');
    expect(await digest()).toBe(before);
    expect(await other.holdCount('taken', undefined)).toBe(1);
    await theirs.release();
    await other.close();
    await stillUsable();
    console.info(`bad input | releasing another owner’s lock | LockLostError | ${(error as Error).message}`);
  });

  it('calls after close(): ClientClosedError naming the lock, and nothing sent', async () => {
    const counting = countingRedis(server.client());
    const closed = createLockClient({ redis: counting.redis });
    await closed.close();
    const calls: Call[] = [
      lock('after-close'),
      (c) => c.acquire('after-close'),
      (c) => c.withLock('after-close', () => 1),
      (c) => c.isLocked('after-close'),
      (c) => c.forceUnlock('after-close'),
    ];
    for (const call of calls) {
      const error = await failureOf(call, closed);
      expect(error).toBeInstanceOf(ClientClosedError);
      expect(error.message).toContain('"after-close"');
    }
    expect(counting.scripts()).toBe(0);
    console.info(`bad input | calls after close() | ClientClosedError | ${(await failureOf(calls[0]!, closed)).message}`);
  });

  it('an ioredis client closed by its owner (quit): LockBackendError "closed", not retried', async () => {
    const redis = server.client();
    await redis.quit();
    const closedRedis = createLockClient({ redis });
    const error = await failureOf(lock('quit'), closedRedis);
    expect(error).toBeInstanceOf(LockBackendError);
    expect(error).toHaveProperty('code', 'closed');
    expect(error.message).toContain('"quit"');
    await closedRedis.close();
    console.info(`bad input | ioredis client closed (quit) | LockBackendError closed | ${error.message}`);
  });

  it('an ioredis client that never connected (nothing listens, no retries): LockBackendError "unavailable"', async () => {
    const redis = new Redis({ port: await freePort(), host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => undefined);
    const never = createLockClient({ redis });
    const error = await failureOf(lock('never', { waitMs: 0 }), never);
    expect(error).toBeInstanceOf(LockBackendError);
    expect(error).toHaveProperty('code', 'unavailable');
    expect(error.message).toContain('"never"');
    const second = await failureOf(lock('never'), never);
    expect(second).toHaveProperty('code', 'closed');
    await never.close();
    console.info(`bad input | ioredis client that never connected | LockBackendError unavailable, then closed | ${error.message}`);
  });

  it('a Redis user without the right to run scripts (ACL -@scripting): LockBackendError "other" with the NOPERM reply', async () => {
    await admin.call('ACL', 'SETUSER', 'noscripts', 'on', 'nopass', '~*', '&*', '+@all', '-@scripting');
    const redis = server.client({ username: 'noscripts', password: 'x' });
    const refused = createLockClient({ redis });
    const before = await digest();
    const error = await failureOf(lock('acl'), refused);
    expect(error).toBeInstanceOf(LockBackendError);
    expect(error).toHaveProperty('code', 'other');
    expect(error.message).toContain('"acl"');
    expect(error.message).toMatch(/NOPERM/);
    expect(await digest()).toBe(before);
    await refused.close();
    await admin.call('ACL', 'DELUSER', 'noscripts');
    await stillUsable();
    console.info(`bad input | Redis refuses scripts (ACL) | LockBackendError other | ${error.message}`);
  });

  it('BUSY from a long script elsewhere: within waitMs, LockTimeoutError naming LockBackendError "busy" as its cause; without waitMs it waits the script out', async () => {
    await admin.config('SET', 'busy-reply-threshold', '50');
    const blocker = server.client();
    // 3 to 4 s: longer than the wait below by far, on a loaded machine too, where Redis answers a client only
    // now and then while the script runs.
    const spin = `local start = tonumber(redis.call('time')[1]) while tonumber(redis.call('time')[1]) - start < 4 do end return 1`;
    const long = blocker.eval(spin, 0);
    try {
      // Redis answers BUSY once the script has run past the threshold.
      expect(
        await eventually(
          () =>
            admin.ping().then(
              () => false,
              (error: unknown) => String(error).includes('BUSY'),
            ),
          1_000,
        ),
      ).toBe(true);
      const error = await failureOf(lock('busy', { waitMs: 1_000 }), client);
      // Its attempts failed for a backend reason: the timeout says so, and carries the backend's error.
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect(error.cause).toBeInstanceOf(LockBackendError);
      expect(error.cause).toHaveProperty('code', 'busy');
      expect(error.message).toContain('"busy"');
      expect(error.message).toContain('attempts failed');
      const waited = client.withLock('busy', () => 'after the script');
      expect(await waited).toBe('after the script');
      console.info(`bad input | BUSY (a long script elsewhere), waitMs 1000 | LockTimeoutError, cause LockBackendError busy | ${error.message}`);
    } finally {
      expect(await long).toBe(1);
      await admin.config('SET', 'busy-reply-threshold', '5000');
    }
    await stillUsable();
  });

  it('a NOSCRIPT storm (SCRIPT FLUSH every millisecond) reaches no caller: every script falls back to its body', async () => {
    const storming = { on: true };
    let flushes = 0;
    const flusher = server.client();
    const storm = (async () => {
      while (storming.on) {
        await flusher.script('FLUSH');
        flushes++;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => client.withLock(`storm-${i % 5}`, () => i)));
    storming.on = false;
    await storm;
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(flushes).toBeGreaterThan(5);
    await stillUsable();
  });

  it('a leaseMs the drift allowance would eat half of: RangeError naming the lock, the work not run, nothing sent', async () => {
    const counting = countingRedis(server.client());
    const drifty = createLockClient({ redis: counting.redis, driftMs: 100 });
    let ran = false;
    const work = (): string => {
      ran = true;
      return 'ran';
    };
    const short = { leaseMs: 99 };
    const calls: [Call, string][] = [
      [(c) => c.lock$('d', short), 'lock$("d")'],
      [(c) => c.withLock('d', work, short), 'withLock("d")'],
      [(c) => c.withLock$('d', work, short), 'withLock$("d")'],
      [(c) => c.acquire('d', short), 'acquire("d")'],
      [(c) => c.fairLock$('d', short), 'fairLock$("d")'],
      [(c) => c.readLock$('d', short), 'readLock$("d")'],
      [(c) => c.writeLock$('d', short), 'writeLock$("d")'],
      [(c) => c.multiLock$(['d', 'e'], short), 'multiLock$("d,e")'],
      [(c) => c.multiLock$(['d'], short), 'multiLock$("d")'],
      [(c) => c.leasedSemaphore('d').acquire$(1, short), 'leasedSemaphore("d").acquire$'],
      // Exactly half: 103 ms of drift on a 206 ms lease.
      [(c) => c.lock$('d', { leaseMs: 206 }), '"leaseMs" (206)'],
    ];
    const before = await digest();
    for (const [call, where] of calls) {
      const error = await failureOf(call, drifty);
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toContain(where);
      expect(error.message).toMatch(
        /option "leaseMs" \(\d+\) is too short for the client's drift allowance: "driftMs" \(100\) and "driftFactor" \(0\.01\) allow \d+ ms of drift/,
      );
    }
    expect(ran).toBe(false);
    expect(counting.scripts()).toBe(0);
    expect(await digest()).toBe(before);
    // Over twice the allowance (103 ms of drift on 210 ms) is accepted.
    expect(await drifty.withLock('d', work, { leaseMs: 210 })).toBe('ran');
    console.info(`bad input | leaseMs at most twice the drift allowance | RangeError | ${(await failureOf(calls[0]![0], drifty)).message}`);
    await drifty.close();
  });

  it('bad client options throw at once from createLockClient, naming the option', () => {
    const redis = server.client();
    expect(() => createLockClient({ redis, watchdogTimeoutMs: -5 })).toThrow(RangeError);
    expect(() => createLockClient({ redis, watchdogTimeoutMs: -5 })).toThrow(/"watchdogTimeoutMs".*got -5/);
    expect(() => createLockClient({ redis, clientId: 'a:b' })).toThrow(/"clientId".*no ":"/);
    expect(() => createLockClient({ redis, retries: 3 } as never)).toThrow(/unknown option "retries"/);
    expect(() => createLockClient({ redis: {} as RedisLike })).toThrow(
      /"redis" must be an ioredis client \(Redis or Cluster.*or a node-redis client \(createClient, createCluster or createSentinel/,
    );
    // ioredis would prefix the scripts' keys but not the channels the waiters listen on.
    const prefixed = server.client({ keyPrefix: 'app:' });
    expect(() => createLockClient({ redis: prefixed })).toThrow(TypeError);
    expect(() => createLockClient({ redis: prefixed })).toThrow(/option "redis" has the ioredis option keyPrefix "app:".*rxlock's own keyPrefix option/);
    expect(() => createRedlockClient([redis, prefixed])).toThrow(/instances\[1\] has the ioredis option keyPrefix "app:"/);
    expect(() => createLockClient({ redis, driftFactor: 0.7 })).toThrow(/"driftFactor".*\[0, 0.5\)/);
    expect(() => createLockClient({ redis, driftMs: 40_000 })).toThrow(RangeError);
    expect(() => createLockClient({ redis, driftMs: 40_000 })).toThrow(/"driftMs" \(40000\).*40300 ms of drift on a 30000 ms lease/);
    expect(() => createLockClient({ redis, watchdogTimeoutMs: 100, driftMs: 50 })).toThrow(/under half of it/);
    redis.disconnect();
  });
});

describe('bad input: createMemoryStore options (rxlock/testing), checked as createLockClient checks its own', () => {
  const cases: readonly { options: unknown; error: typeof TypeError | typeof RangeError; message: string }[] = [
    { options: { latency: 5 }, error: TypeError, message: 'rxlock: createMemoryStore: unknown option "latency" (known: scheduler, latencyMs)' },
    {
      options: { latencyMs: -5 },
      error: RangeError,
      message: 'rxlock: createMemoryStore: option "latencyMs" must be a non-negative integer (ms, at most 2147483647), got -5',
    },
    { options: { latencyMs: NaN }, error: RangeError, message: 'option "latencyMs" must be a non-negative integer (ms, at most 2147483647), got NaN' },
    { options: { latencyMs: 1.5 }, error: RangeError, message: 'option "latencyMs" must be a non-negative integer (ms, at most 2147483647), got 1.5' },
    {
      options: { latencyMs: Infinity },
      error: RangeError,
      message: 'option "latencyMs" must be a non-negative integer (ms, at most 2147483647), got Infinity',
    },
    { options: { latencyMs: '5' }, error: TypeError, message: 'option "latencyMs" must be a number of milliseconds, got "5"' },
    { options: { scheduler: {} }, error: TypeError, message: 'rxlock: createMemoryStore: option "scheduler" must be an RxJS SchedulerLike, got an object' },
    { options: { scheduler: null }, error: TypeError, message: 'option "scheduler" must be an RxJS SchedulerLike, got null' },
    { options: 5, error: TypeError, message: 'rxlock: createMemoryStore: options must be an object, got 5' },
    { options: null, error: TypeError, message: 'rxlock: createMemoryStore: options must be an object, got null' },
  ];
  for (const { options, error, message } of cases) {
    it(`createMemoryStore(${JSON.stringify(options, (_, value: unknown) => (Number.isNaN(value) || value === Infinity ? String(value) : value))})`, () => {
      expect(() => createMemoryStore(options as MemoryStoreOptions)).toThrow(error);
      expect(() => createMemoryStore(options as MemoryStoreOptions)).toThrow(message);
      expect(() => new MemoryStore(options as MemoryStoreOptions)).toThrow(message);
    });
  }

  it('accepts what the README shows, and no options at all', () => {
    expect(createMemoryStore().latencyMs).toBe(0);
    expect(createMemoryStore({}).latencyMs).toBe(0);
    expect(createMemoryStore({ scheduler: asyncScheduler, latencyMs: 1 }).latencyMs).toBe(1);
    expect(createMemoryStore({ scheduler: undefined, latencyMs: undefined }).latencyMs).toBe(0);
  });
});
