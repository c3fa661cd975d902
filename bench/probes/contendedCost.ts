/**
 * Where a contended acquisition's CPU goes, after an idle hold and without one. The bench's contended
 * scenario (8 workers on one key, hold 1 ms) and its contended-heavy one (32 workers, hold 0) for rxlock's
 * lock, its fair lock and redis-semaphore, in interleaved rounds of `PROBE_SECONDS` (default 3) each; per
 * acquisition, medians over the rounds:
 * - the bench process's user and system CPU (`process.cpuUsage`);
 * - redis-server's user and system CPU (`INFO cpu`) and the time it spent in EVALSHA, the scripts' own calls
 *   included (`INFO commandstats`);
 * - the reads and writes Redis made (`INFO stats`);
 * - the times the bench's main thread and Redis's blocked waiting, each a wake-up
 *   (`voluntary_ctxt_switches` of `/proc/<pid>/status`; Redis's only when the probe started it).
 * Run after `npm run build`: `node --import tsx bench/probes/contendedCost.ts`.
 */
import { readFileSync } from 'node:fs';
import type { Contender } from '../contenders/Contender.js';
import { redisSemaphore } from '../contenders/redisSemaphore.js';
import { rxlockFairLock } from '../contenders/rxlockFairLock.js';
import { rxlockLock } from '../contenders/rxlockLock.js';
import { median } from '../histogram.js';
import { DEFAULT_OPTIONS } from '../options.js';
import { evalshaStats, infoNumber } from '../redisInfo.js';
import { CONTENDED, HEAVY, type LockScenario } from '../scenarios/lockScenarios.js';
import { runWindow } from '../scenarios/window.js';
import { openServer } from '../server.js';
import { probeSize } from './size.js';

const ROUNDS = probeSize(3, 1);
const WINDOW_MS = Number(process.env['PROBE_SECONDS'] ?? probeSize(3, 0.3)) * 1_000;
const CONTENDERS: readonly Contender[] = [rxlockLock, rxlockFairLock, redisSemaphore];
const SCENARIOS: readonly LockScenario[] = [CONTENDED, HEAVY];

const FIGURES = [
  'client user µs',
  'client system µs',
  'Redis user µs',
  'Redis system µs',
  'EVALSHA µs',
  'Redis reads',
  'Redis writes',
  'client wake-ups',
  'Redis wake-ups',
] as const;

const server = await openServer(process.env['REDIS_URL']);
const redisPid = process.env['REDIS_URL'] === undefined ? infoNumber(await server.admin.info('server'), 'process_id') : undefined;

/** A process's voluntary context switches (its main thread's): how often it blocked, so woke. */
function wakeUps(pid: number | 'self' | undefined): number {
  if (pid === undefined) return Number.NaN;
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1]);
}

/** What Redis reports, in the order the figures show it. */
const REDIS_READINGS = ['user', 'system', 'evalsha', 'reads', 'writes'] as const;

interface Reading {
  readonly client: NodeJS.CpuUsage;
  readonly clientWakeUps: number;
  readonly redisWakeUps: number;
  readonly redis: Record<(typeof REDIS_READINGS)[number], number>;
}

async function read(): Promise<Reading> {
  const info = [await server.admin.info('cpu'), await server.admin.info('stats'), await server.admin.info('commandstats')].join('\n');
  return {
    client: process.cpuUsage(),
    clientWakeUps: wakeUps('self'),
    redisWakeUps: wakeUps(redisPid),
    redis: {
      user: infoNumber(info, 'used_cpu_user') * 1e6,
      system: infoNumber(info, 'used_cpu_sys') * 1e6,
      evalsha: evalshaStats(info).usec,
      reads: infoNumber(info, 'total_reads_processed'),
      writes: infoNumber(info, 'total_writes_processed'),
    },
  };
}

const perAcquisition = new Map<string, number[][]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const scenario of SCENARIOS) {
    for (const contender of CONTENDERS) {
      const marker = `rxbench-contended-cost:${scenario.id}:${contender.id}:${String(round)}`;
      const before = await read();
      const result = await runWindow({
        server,
        contender,
        workers: scenario.workers,
        keyOf: () => `${marker}:shared`,
        holdMs: scenario.holdMs,
        windowMs: WINDOW_MS,
        drainMs: DEFAULT_OPTIONS.drainMs,
      });
      const after = await read();
      await server.deleteKeys(marker);
      if (result.overlaps > 0 || result.errors > 0)
        throw new Error(`${contender.label}: ${String(result.overlaps)} overlaps, ${String(result.errors)} errors (${String(result.firstError)})`);
      const per = (value: number): number => value / Math.max(1, result.acquisitions);
      const figures = [
        per(after.client.user - before.client.user),
        per(after.client.system - before.client.system),
        ...REDIS_READINGS.map((name) => per(after.redis[name] - before.redis[name])),
        per(after.clientWakeUps - before.clientWakeUps),
        per(after.redisWakeUps - before.redisWakeUps),
      ];
      const key = `${scenario.id} ${contender.label}`;
      const rounds = perAcquisition.get(key) ?? [];
      perAcquisition.set(key, rounds);
      rounds.push(figures);
    }
  }
}
await server.stop();

console.log(`${server.description}; per acquisition, medians of ${String(ROUNDS)} rounds of ${String(WINDOW_MS / 1_000)} s`);
for (const [key, rounds] of perAcquisition) {
  const figures = FIGURES.map((name, i) => {
    const value = median(rounds.map((figures) => figures[i]!));
    return `${name} ${Number.isNaN(value) ? '–' : value.toFixed(i < 5 ? 0 : 1)}`;
  });
  console.log(`${key.padEnd(30)} ${figures.join(', ')}`);
}
