/**
 * Why a contended 1 ms hold (`setTimeout(1)`) times differently for rxlock than for the polling locks when all
 * workers share one event loop, as in the bench. Node counts a timer in whole milliseconds of libuv's loop
 * clock, and each time the loop wakes for other input it waits again for the remaining whole milliseconds:
 * input in the same millisecond as the timer's start pushes it back, input in the next one lets it fire
 * early. Part 1 shows this without a lock, for a timer started right after a PING's reply, alone and with a
 * second connection's PING answered during it. Part 2 times the contended scenario's holds (8 workers on one
 * key, hold `setTimeout(1)`) for rxlock's locks, whose releaser's reply and next acquire land during the new
 * owner's hold, and for redis-semaphore, whose waiters sleep through it; interleaved rounds.
 * Run after `npm run build`: `node --import tsx bench/probes/holdTimer.ts` (`PROBE_SECONDS` per round, default 5).
 */
import { redisSemaphore } from '../contenders/redisSemaphore.js';
import { rxlockFairLock } from '../contenders/rxlockFairLock.js';
import { rxlockLock } from '../contenders/rxlockLock.js';
import { latencyHistogram, recordMs, type Histogram } from '../histogram.js';
import { openServer, trackedConnections } from '../server.js';
import { sleep } from '../sleep.js';
import { probeSize } from './size.js';

const TIMERS = probeSize(3_000, 20);
const WORKERS = 8;
const ROUNDS = probeSize(2, 1);
const LEAD_IN_MS = probeSize(1_000, 100);
const SECONDS = Number(process.env['PROBE_SECONDS'] ?? probeSize(5, 0.3));

const server = await openServer(process.env['REDIS_URL']);
const connections = trackedConnections(server);

/** Timer durations: their histogram, and how many fired before 1 ms. */
interface Timings {
  readonly histogram: Histogram;
  early: number;
}

const timings = (): Timings => ({ histogram: latencyHistogram(), early: 0 });

function record(into: Timings, ms: number): void {
  recordMs(into.histogram, ms);
  if (ms < 1) into.early++;
}

function describe({ histogram, early }: Timings): string {
  const at = (percentile: number): string => (histogram.getValueAtPercentile(percentile) / 1_000).toFixed(3);
  const share = histogram.totalCount === 0 ? 0 : (100 * early) / histogram.totalCount;
  return `p10 ${at(10)} ms, p50 ${at(50)} ms, p90 ${at(90)} ms, mean ${(histogram.mean / 1_000).toFixed(3)} ms, under 1 ms ${share.toFixed(1)} %`;
}

const first = connections.connect();
const second = connections.connect();
const alone = timings();
const withReply = timings();
for (let round = 0; round < TIMERS; round++) {
  await first.ping();
  let start = performance.now();
  await sleep(1);
  record(alone, performance.now() - start);
  await first.ping();
  start = performance.now();
  const answered = second.ping();
  await sleep(1);
  record(withReply, performance.now() - start);
  await answered;
}
console.log(server.description);
console.log(`setTimeout(1) after a PING's reply, ${String(TIMERS)} each:`);
console.log(`  alone                              ${describe(alone)}`);
console.log(`  another PING answered during it    ${describe(withReply)}`);

const contenders = [rxlockLock, rxlockFairLock, redisSemaphore];
const holds = new Map(contenders.map((contender) => [contender.id, timings()]));
for (let round = 0; round < ROUNDS; round++) {
  for (const contender of contenders) {
    const key = `hold-timer-${contender.id}-${String(round)}`;
    const workers = await Promise.all(Array.from({ length: WORKERS }, () => contender.open({ key, connect: connections.connect })));
    const measured = holds.get(contender.id)!;
    let running = true;
    let measureFrom = Infinity;
    let measureUntil = Infinity;
    const loops = workers.map(async (worker) => {
      while (running) {
        while (!(await worker.acquire()));
        const at = performance.now();
        await sleep(1);
        if (at >= measureFrom && at < measureUntil) record(measured, performance.now() - at);
        await worker.release();
      }
    });
    await sleep(LEAD_IN_MS);
    measureFrom = performance.now();
    await sleep(SECONDS * 1_000);
    measureUntil = performance.now();
    running = false;
    await Promise.all(loops);
    for (const worker of workers) await worker.close();
  }
}
console.log(`contended holds (setTimeout(1)), ${String(WORKERS)} workers on one key, ${String(ROUNDS)} × ${String(SECONDS)} s each:`);
for (const contender of contenders) console.log(`  ${contender.label.padEnd(33)}  ${describe(holds.get(contender.id)!)}`);
connections.disconnectAll();
await server.stop();
