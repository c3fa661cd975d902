/**
 * What rxlock's lock scripts cost Redis itself, next to Redisson's RLock scripts: for each, 1,000 free keys
 * are acquired in one pipeline and then released in another, and `INFO commandstats` gives the server time
 * per call (execution only, without network or parsing). 7 interleaved rounds of 8 batches; medians.
 * Run after `npm run build`: `node --import tsx bench/probes/scriptCost.ts`.
 */
import type { Redis } from 'ioredis';
import type * as AcquireScript from '../../src/primitives/lock/acquireScript.js';
import type * as LockKeys from '../../src/primitives/lock/lockKeys.js';
import type * as ReleaseScript from '../../src/primitives/lock/releaseScript.js';
import { REDISSON_LOCK_LUA, REDISSON_UNLOCK_LUA, RedissonPeer } from '../../test/support/redisson.js';
import { dist } from '../rxlock.js';
import { openServer } from '../server.js';

const { lockAcquireScript } = (await import(`${dist}/primitives/lock/acquireScript.js`)) as typeof AcquireScript;
const { lockReleaseScript } = (await import(`${dist}/primitives/lock/releaseScript.js`)) as typeof ReleaseScript;
const { lockKeys } = (await import(`${dist}/primitives/lock/lockKeys.js`)) as typeof LockKeys;

const ROUNDS = 7;
const BATCHES = 8;
const KEYS_PER_BATCH = 1_000;
const LEASE_MS = 30_000;
const FIELD = 'c3a8e2b4-1f9d-4c1e-9a7b-0123456789ab:#1';

/** One lock's acquire and release, as `[numKeys, ...keys, ...args]` for a key. */
interface ScriptPair {
  readonly label: string;
  readonly acquireLua: string;
  readonly releaseLua: string;
  readonly acquire: (key: string) => (string | number)[];
  readonly release: (key: string) => (string | number)[];
}

const pairs: readonly ScriptPair[] = [
  {
    label: "Redisson's RLock scripts",
    acquireLua: REDISSON_LOCK_LUA,
    releaseLua: REDISSON_UNLOCK_LUA,
    acquire: (key) => [1, key, LEASE_MS, FIELD],
    release: (key) => [2, key, RedissonPeer.channel(key), 0, LEASE_MS, FIELD],
  },
  {
    label: "rxlock's lock scripts",
    acquireLua: lockAcquireScript.lua,
    releaseLua: lockReleaseScript.lua,
    acquire: (key) => {
      const keys = lockKeys(key).acquireKeys;
      return [keys.length, ...keys, LEASE_MS, FIELD, 'new', 100];
    },
    release: (key) => {
      const keys = lockKeys(key).releaseKeys;
      return [keys.length, ...keys, FIELD, 100, 'publish'];
    },
  },
];

/** Calls and µs of EVALSHA so far. */
async function evalshaStats(redis: Redis): Promise<{ calls: number; usec: number }> {
  const match = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(await redis.info('commandstats'));
  return { calls: Number(match?.[1] ?? 0), usec: Number(match?.[2] ?? 0) };
}

/** Sends one pipeline of EVALSHA calls; returns the server µs per call. */
async function timedBatch(redis: Redis, sha: string, calls: readonly (string | number)[][]): Promise<number> {
  const before = await evalshaStats(redis);
  const pipeline = redis.pipeline();
  for (const [numKeys, ...rest] of calls) pipeline.evalsha(sha, numKeys!, ...rest);
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([error]) => error !== null);
  if (failed?.[0] != null) throw failed[0];
  const after = await evalshaStats(redis);
  return (after.usec - before.usec) / (after.calls - before.calls);
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const server = await openServer(process.env['REDIS_URL']);
const redis = server.connect();
const marker = `script-cost-${String(Date.now())}`;
const perPair = pairs.map(() => ({ acquire: [] as number[], release: [] as number[] }));
try {
  const shas = await Promise.all(
    pairs.map(async (pair) => [(await redis.script('LOAD', pair.acquireLua)) as string, (await redis.script('LOAD', pair.releaseLua)) as string] as const),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, pair] of pairs.entries()) {
      const [acquireSha, releaseSha] = shas[index]!;
      for (let batch = 0; batch < BATCHES; batch++) {
        const keys = Array.from({ length: KEYS_PER_BATCH }, (_, i) => `${marker}:${String(index)}:${String(round)}:${String(batch)}:${String(i)}`);
        perPair[index]!.acquire.push(await timedBatch(redis, acquireSha, keys.map(pair.acquire)));
        perPair[index]!.release.push(await timedBatch(redis, releaseSha, keys.map(pair.release)));
      }
    }
  }
  console.log(
    `${server.description}; server µs per call (INFO commandstats), free keys, medians of ${String(ROUNDS * BATCHES)} batches of ${String(KEYS_PER_BATCH)}`,
  );
  for (const [index, pair] of pairs.entries()) {
    const { acquire, release } = perPair[index]!;
    console.log(`${pair.label.padEnd(26)} acquire ${median(acquire).toFixed(2)} µs, release ${median(release).toFixed(2)} µs`);
  }
} finally {
  await server.deleteKeys(marker);
  redis.disconnect();
  await server.stop();
}
