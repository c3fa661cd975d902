/**
 * What rxlock's lock scripts cost Redis itself, next to Redisson's RLock scripts: for each, 1,000 free keys
 * are acquired in one pipeline and then released in another, and `INFO commandstats` gives the server time
 * per call (execution only, without network or parsing). 7 interleaved rounds of 8 batches; medians.
 * Then the contended paths of rxlock's scripts, on 1,000 held keys per batch: an acquire that is refused
 * and queues its caller, and a release that hands the lock directly to that waiter (whose client listens on
 * its hand-off channel).
 * Run after `npm run build`: `node --import tsx bench/probes/scriptCost.ts`.
 */
import type { Redis } from 'ioredis';
import type { LockScripts } from '../contenders/lockScripts.js';
import { REDISSON_LOCK_SCRIPTS } from '../contenders/redissonScripts.js';
import { rxlockContendedCalls, RXLOCK_LOCK_SCRIPTS } from '../contenders/rxlockScripts.js';
import { median } from '../histogram.js';
import { evalshaStats } from '../redisInfo.js';
import { openServer } from '../server.js';
import { probeSize } from './size.js';

const ROUNDS = probeSize(7, 1);
const BATCHES = probeSize(8, 1);
const KEYS_PER_BATCH = probeSize(1_000, 20);
const FIELD = 'c3a8e2b4-1f9d-4c1e-9a7b-0123456789ab:1';

const pairs: readonly (LockScripts & { readonly label: string })[] = [
  { label: "Redisson's RLock scripts", ...REDISSON_LOCK_SCRIPTS },
  { label: "rxlock's lock scripts", ...RXLOCK_LOCK_SCRIPTS },
];

/** Calls and µs of EVALSHA so far. */
async function evalshaSoFar(redis: Redis): Promise<{ calls: number; usec: number }> {
  return evalshaStats(await redis.info('commandstats'));
}

/** Sends one pipeline of EVALSHA calls; returns the server µs per call. */
async function timedBatch(redis: Redis, sha: string, calls: readonly [number, ...(string | number)[]][]): Promise<number> {
  const before = await evalshaSoFar(redis);
  const pipeline = redis.pipeline();
  for (const call of calls) pipeline.evalsha(sha, ...call);
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([error]) => error !== null);
  if (failed?.[0] != null) throw failed[0];
  const after = await evalshaSoFar(redis);
  return (after.usec - before.usec) / (after.calls - before.calls);
}

/** rxlock's refused-and-queued acquire and its direct hand-off release, each timed over batches of held keys. */
async function contendedPaths([acquireSha, releaseSha]: readonly [string, string]): Promise<{ refused: number[]; handOff: number[] }> {
  const listener = await server.listener();
  const times = { refused: [] as number[], handOff: [] as number[] };
  try {
    for (let batch = 0; batch < ROUNDS * BATCHES; batch++) {
      const keys = Array.from({ length: KEYS_PER_BATCH }, (_, i) => `${marker}:held:${String(batch)}:${String(i)}`);
      const calls = keys.map((key) => rxlockContendedCalls(key));
      await timedBatch(
        redis,
        acquireSha,
        calls.map((call) => call.holderAcquire),
      );
      await listener.subscribe(...calls.map((call) => call.waiterChannel));
      times.refused.push(
        await timedBatch(
          redis,
          acquireSha,
          calls.map((call) => call.waiterAcquire),
        ),
      );
      times.handOff.push(
        await timedBatch(
          redis,
          releaseSha,
          calls.map((call) => call.holderRelease),
        ),
      );
      const handedOver = await Promise.all(calls.map((call, i) => redis.hexists(keys[i]!, call.waiterField)));
      if (handedOver.some((held) => held !== 1)) throw new Error('scriptCost: a release did not hand the lock to its waiter');
      await timedBatch(
        redis,
        releaseSha,
        calls.map((call) => call.waiterRelease),
      );
      await listener.unsubscribe();
    }
  } finally {
    listener.disconnect();
  }
  return times;
}

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
        perPair[index]!.acquire.push(
          await timedBatch(
            redis,
            acquireSha,
            keys.map((key) => pair.acquire(key, FIELD)),
          ),
        );
        perPair[index]!.release.push(
          await timedBatch(
            redis,
            releaseSha,
            keys.map((key) => pair.release(key, FIELD)),
          ),
        );
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
  const contended = await contendedPaths(shas[pairs.length - 1]!);
  console.log(
    `rxlock's lock scripts, held keys: refused acquire (queued) ${median(contended.refused).toFixed(2)} µs, ` +
      `release handing to the waiter ${median(contended.handOff).toFixed(2)} µs`,
  );
} finally {
  await server.deleteKeys(marker);
  redis.disconnect();
  await server.stop();
}
