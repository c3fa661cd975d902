import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { CONTENDERS } from './contenders/index.js';
import { RXLOCK_PRIMITIVES } from './contenders/rxlockObservables.js';
import { canCollect } from './heap.js';
import { summarize } from './histogram.js';
import type { BenchOptions } from './options.js';
import { checkTargets } from './report/targets.js';
import type { BenchResults, LockScenarioResult } from './results.js';
import { runIsolated } from './isolated.js';
import type { EnduranceFigures } from './scenarios/endurance.js';
import { LOCK_SCENARIOS } from './scenarios/lockScenarios.js';
import type { ManyHeldFigures } from './scenarios/manyHeld.js';
import { measurePing, pingHistograms } from './scenarios/ping.js';
import { runLockScenario } from './scenarios/runLockScenario.js';
import { openServer } from './server.js';

const ENDURANCE_WORKERS = 16;
const ENDURANCE_KEYS = 8;

/** Runs the selected scenarios against one Redis and returns every figure. `progress` gets one line per step. */
export async function runBench(options: BenchOptions, progress: (line: string) => void): Promise<BenchResults> {
  const startedAt = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const selected = (id: string): boolean => options.contenders === undefined || options.contenders.includes(id);
  const contenders = CONTENDERS.filter((contender) => selected(contender.id));
  const primitives = RXLOCK_PRIMITIVES.filter((primitive) => selected(primitive.id));
  const server = await openServer(options.redisUrl);
  const keyMarker = `rxbench-${randomBytes(4).toString('hex')}`;
  const ping = pingHistograms();
  progress(`${server.description}; keys marked ${keyMarker}`);
  try {
    const lockScenarios: LockScenarioResult[] = [];
    for (const scenario of LOCK_SCENARIOS) {
      if (!options.scenarios.includes(scenario.id)) continue;
      const figures = await runLockScenario(server, scenario, contenders, {
        windowMs: options.windowMs,
        rounds: options.rounds,
        drainMs: options.drainMs,
        pingsPerRound: options.pingsPerRound,
        keyMarker,
        ping,
        progress,
      });
      lockScenarios.push({ scenario, figures });
    }
    if (ping.backToBack.totalCount === 0) await measurePing(server, ping, options.pingsPerRound);

    // The heap figures are measured in a child process each, whose heap holds nothing of the scenarios before: see `runIsolated`.
    const manyHeld: ManyHeldFigures[] = [];
    if (options.scenarios.includes('held')) {
      for (const primitive of primitives) {
        progress(`many held: ${primitive.label}, ${options.heldLocks.toLocaleString('en-US')} locks`);
        const settings = { locks: options.heldLocks, watchdogTimeoutMs: options.heldWatchdogMs, ticks: options.heldTicks, keyMarker };
        manyHeld.push(await runIsolated<ManyHeldFigures>({ scenario: 'held', primitive: primitive.id, settings }, server.url, progress));
      }
    }

    const endurance: EnduranceFigures[] = [];
    if (options.scenarios.includes('endurance')) {
      for (const primitive of primitives) {
        progress(`endurance: ${primitive.label}, ${options.enduranceCycles.toLocaleString('en-US')} cycles`);
        const settings = { cycles: options.enduranceCycles, workers: ENDURANCE_WORKERS, keys: ENDURANCE_KEYS, keyMarker };
        endurance.push(await runIsolated<EnduranceFigures>({ scenario: 'endurance', primitive: primitive.id, settings }, server.url, progress));
      }
    }

    const results: Omit<BenchResults, 'targets'> = {
      info: {
        date: new Date().toISOString(),
        node: process.version,
        server: server.description,
        cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
        loadStart,
        loadEnd: loadavg()[0] ?? 0,
        durationSeconds: (performance.now() - startedAt) / 1_000,
        options,
        gcExposed: canCollect(),
      },
      ping: summarize(ping.backToBack),
      pingAfterPause: summarize(ping.afterPause),
      publishAfterPause: summarize(ping.publishAfterPause),
      idleTimer: summarize(ping.idleTimer),
      lockScenarios,
      manyHeld,
      endurance,
    };
    return { ...results, targets: checkTargets(results) };
  } finally {
    await server.deleteKeys(keyMarker).catch(() => undefined);
    await server.stop();
  }
}
