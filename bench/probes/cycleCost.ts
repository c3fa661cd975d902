/**
 * The uncontended scenario reduced to its two contenders that matter for its target: the floor (two EVALSHAs
 * of `return 1` through ioredis's `evalsha()`) and rxlock's lock (`acquire` then `release`), 16 workers on their
 * own keys and connections, in interleaved rounds within one process. Per round: cycles per second, the
 * process's CPU per cycle, and the young-generation collections seen meanwhile (count and mean pause), which
 * tell apart the rounds in which V8 had pretenured an allocation site of the hot path (scavenges then take
 * twice as long and more). Run after `npm run build`: `node --import tsx bench/probes/cycleCost.ts`; add
 * `--no-allocation-site-pretenuring` to Node's flags for the control, `RXLOCK_DIST` to measure another build,
 * `PROBE_ROUNDS` and `PROBE_MS` to change the rounds (default 4) and their length (default 2000 ms).
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { median } from '../histogram.js';
import { rxlock } from '../rxlock.js';
import { openServer } from '../server.js';
import { runCycleWindow, type CycleLoop } from './cycleWindow.js';
import { probeSize } from './size.js';

const WORKERS = 16;
const ROUNDS = Number(process.env['PROBE_ROUNDS'] ?? probeSize(4, 1));
const ROUND_MS = Number(process.env['PROBE_MS'] ?? probeSize(2_000, 200));
const MARKER = `cycle-cost-${String(process.pid)}`;

const server = await openServer(process.env['REDIS_URL']);

const contenders: Record<string, (worker: number) => Promise<CycleLoop>> = {
  floor: async (worker) => {
    const redis = server.connect();
    const sha1 = (await redis.script('LOAD', 'return 1')) as string;
    const key = `${MARKER}:${String(worker)}`;
    return {
      cycle: async () => {
        await redis.evalsha(sha1, 1, key);
        await redis.evalsha(sha1, 1, key);
      },
      close: () => Promise.resolve(redis.disconnect()),
    };
  },
  'rxlock lock': async (worker) => {
    const redis = server.connect();
    const client = rxlock.createLockClient({ redis });
    const key = `${MARKER}:${String(worker)}`;
    const cycle = async (): Promise<void> => {
      const handle = await client.acquire(key);
      await handle.release();
    };
    await cycle();
    return {
      cycle,
      close: async () => {
        await client.close();
        redis.disconnect();
      },
    };
  },
};

let scavenges = 0;
let scavengeMs = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
    scavenges++;
    scavengeMs += entry.duration;
  }
});
observer.observe({ entryTypes: ['gc'] });

const cpuPerCycle = new Map<string, number[]>();
try {
  console.log(`${server.description}; ${String(WORKERS)} workers, ${String(ROUNDS)} interleaved rounds of ${String(ROUND_MS)} ms`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, open] of Object.entries(contenders)) {
      const loops = await Promise.all(Array.from({ length: WORKERS }, (_, worker) => open(worker)));
      await new Promise((resolve) => setImmediate(resolve));
      scavenges = 0;
      scavengeMs = 0;
      const { cycles, elapsedMs, cpuUs } = await runCycleWindow(loops, ROUND_MS);
      await new Promise((resolve) => setImmediate(resolve));
      const perCycle = cpuUs / cycles;
      cpuPerCycle.set(name, [...(cpuPerCycle.get(name) ?? []), perCycle]);
      console.log(
        `round ${String(round + 1)} ${name.padEnd(12)} ${Math.round((cycles / elapsedMs) * 1000)
          .toString()
          .padStart(
            7,
          )} cycles/s, ${perCycle.toFixed(2)} µs CPU per cycle, ${String(scavenges)} scavenges of ${(scavengeMs / Math.max(1, scavenges)).toFixed(2)} ms on average`,
      );
      await Promise.all(loops.map((loop) => loop.close()));
    }
  }
  const floor = median(cpuPerCycle.get('floor') ?? []);
  const lock = median(cpuPerCycle.get('rxlock lock') ?? []);
  console.log(`medians: floor ${floor.toFixed(2)} µs, rxlock lock ${lock.toFixed(2)} µs per cycle; floor / rxlock ${(floor / lock).toFixed(3)}`);
} finally {
  observer.disconnect();
  await server.deleteKeys(MARKER);
  await server.stop();
}
