/**
 * The least a pub/sub hand-off can take on this machine, for scale against the switch gap: after a 1 ms
 * pause (as at the end of a contended hold), the round trip of a PING, and the time from sending to a
 * subscriber on another connection getting the message, for a PUBLISH and for an EVALSHA of a script that
 * does nothing but publish. No lock, no engine: raw ioredis. Interleaved, medians after a warm-up.
 * Run: `node --import tsx bench/probes/publishFloor.ts` (`PROBE_ROUNDS`, default 3000).
 */
import { median } from '../histogram.js';
import { publishListener, PUBLISH_ONLY_LUA } from '../scenarios/ping.js';
import { openServer } from '../server.js';
import { sleep } from '../sleep.js';
import { probeSize } from './size.js';

const ROUNDS = Number(process.env['PROBE_ROUNDS'] ?? probeSize(3_000, 20));
const WARM_UP = probeSize(200, 5);

const server = await openServer(process.env['REDIS_URL']);
const sender = server.connect();
const listener = await publishListener(server);
const publishOnly = (await sender.script('LOAD', PUBLISH_ONLY_LUA)) as string;

const variants: readonly { readonly label: string; readonly run: () => Promise<unknown>; readonly ms: number[] }[] = [
  { label: 'PING, round trip', run: () => sender.ping(), ms: [] },
  { label: 'PUBLISH, to the message', run: () => listener.delivered(() => sender.publish(listener.channel, 'granted')), ms: [] },
  { label: 'publish-only script, to the message', run: () => listener.delivered(() => sender.evalsha(publishOnly, 1, listener.channel)), ms: [] },
];

for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    await sleep(1);
    const sentAt = performance.now();
    await variant.run();
    if (round >= WARM_UP) variant.ms.push(performance.now() - sentAt);
  }
}

console.log(`${server.description}; each after a 1 ms pause; medians of ${String(ROUNDS - WARM_UP)}`);
for (const { label, ms } of variants) console.log(`${label.padEnd(38)} ${median(ms).toFixed(3)} ms`);
sender.disconnect();
listener.close();
await server.stop();
