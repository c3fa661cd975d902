/**
 * What the lock's release costs Redis on a direct hand-off when it arrives after an idle hold, as it does at
 * the end of every contended hold: Redis has been asleep, and its code and data have left the CPU's caches.
 * Each round sets up a held lock and a queued waiter whose client listens on its hand-off channel, pauses
 * 1 ms, sends the release, and records the release's reply, the hand-off message's arrival, and the server
 * time of the call (`INFO commandstats`). With `BASELINE_DIST=/abs/path/to/dist` it alternates with the
 * release script of another build. Medians after a warm-up.
 * Run after `npm run build`: `node --import tsx bench/probes/coldHandOff.ts` (`PROBE_ROUNDS`, default 6000).
 */
import { pathToFileURL } from 'node:url';
import type * as ReleaseScript from '../../src/primitives/lock/releaseScript.js';
import { rxlockContendedCalls, RXLOCK_LOCK_SCRIPTS } from '../contenders/rxlockScripts.js';
import { median } from '../histogram.js';
import { evalshaStats } from '../redisInfo.js';
import { openServer } from '../server.js';
import { sleep } from '../sleep.js';
import { probeSize } from './size.js';

const ROUNDS = Number(process.env['PROBE_ROUNDS'] ?? probeSize(6_000, 20));
const WARM_UP = probeSize(300, 5);

const server = await openServer(process.env['REDIS_URL']);
const marker = `rxbench-cold-${String(Date.now())}`;
const redis = server.connect();
const listener = await server.listener();
const stats = server.connect();

const calls = rxlockContendedCalls(`${marker}:lock`);

interface Variant {
  readonly label: string;
  readonly sha: string;
  readonly reply: number[];
  readonly message: number[];
  readonly serverUs: number[];
}

const variant = async (label: string, lua: string): Promise<Variant> => ({
  label,
  sha: (await redis.script('LOAD', lua)) as string,
  reply: [],
  message: [],
  serverUs: [],
});
const variants = [await variant('this build', RXLOCK_LOCK_SCRIPTS.releaseLua)];
const baseline = process.env['BASELINE_DIST'];
if (baseline !== undefined) {
  const { lockReleaseScript } = (await import(`${pathToFileURL(baseline).href}/primitives/lock/releaseScript.js`)) as typeof ReleaseScript;
  variants.push(await variant('BASELINE_DIST', lockReleaseScript.lua));
}
const acquireSha = (await redis.script('LOAD', RXLOCK_LOCK_SCRIPTS.acquireLua)) as string;

async function evalshaSoFar(): Promise<{ calls: number; usec: number }> {
  return evalshaStats(await stats.info('commandstats'));
}

let messageAt = 0;
let messaged = (): void => undefined;
listener.on('message', () => {
  messageAt = performance.now();
  messaged();
});
await listener.subscribe(calls.waiterChannel);

for (let round = 0; round < ROUNDS; round++) {
  const current = variants[round % variants.length]!;
  if (!RXLOCK_LOCK_SCRIPTS.granted(await redis.evalsha(acquireSha, ...calls.holderAcquire))) throw new Error('the holder was refused');
  await redis.evalsha(acquireSha, ...calls.waiterAcquire);
  const before = await evalshaSoFar();
  await sleep(1);
  // Only a direct hand-off publishes on the waiter's channel: its message resolves this.
  const message = new Promise<void>((resolve) => (messaged = resolve));
  const sentAt = performance.now();
  const released = await redis.evalsha(current.sha, ...calls.holderRelease);
  const repliedAt = performance.now();
  // 3 (HANDED_OVER) since c9c3c3c; a build before it answers 2 for the same unlock.
  if (released !== 3 && released !== 2) throw new Error(`${current.label} answered ${String(released)}`);
  await message;
  const after = await evalshaSoFar();
  await redis.evalsha(acquireSha, ...calls.waiterAcquire);
  await redis.evalsha(current.sha, ...calls.waiterRelease);
  await server.deleteKeys(marker);
  if (round < WARM_UP) continue;
  current.reply.push(repliedAt - sentAt);
  current.message.push(messageAt - sentAt);
  current.serverUs.push((after.usec - before.usec) / (after.calls - before.calls));
}

console.log(`${server.description}; lock release handing to a listening waiter after a 1 ms pause; medians of ${String((ROUNDS - WARM_UP) / variants.length)}`);
for (const { label, reply, message, serverUs } of variants) {
  console.log(
    `${label.padEnd(26)} server ${median(serverUs).toFixed(1).padStart(5)} µs   reply ${median(reply).toFixed(3)} ms   hand-off message ${median(message).toFixed(3)} ms`,
  );
}
redis.disconnect();
listener.disconnect();
stats.disconnect();
await server.stop();
