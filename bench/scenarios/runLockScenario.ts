import type { Contender } from '../contenders/Contender.js';
import type { BenchServer } from '../server.js';
import { aggregate, unavailableFigures, type ContenderFigures } from './aggregate.js';
import type { LockScenario } from './lockScenarios.js';
import { measurePing, type PingHistograms } from './ping.js';
import { runWindow, type WindowResult } from './window.js';

export interface LockScenarioSettings {
  readonly windowMs: number;
  readonly rounds: number;
  readonly drainMs: number;
  readonly pingsPerRound: number;
  /** Marks every key of this run, so the bench deletes only its own keys. */
  readonly keyMarker: string;
  /** PING round trips of the whole run; each round adds its own. */
  readonly ping: PingHistograms;
  readonly progress: (line: string) => void;
}

/**
 * Runs the scenario's windows round-robin: every round runs each contender once, in an order rotated by
 * one per round, so that drift on a shared machine spreads over all contenders alike.
 */
export async function runLockScenario(
  server: BenchServer,
  scenario: LockScenario,
  contenders: readonly Contender[],
  settings: LockScenarioSettings,
): Promise<ContenderFigures[]> {
  const runnable = contenders.filter((contender) => scenario.id === 'uncontended' || contender.excludes);
  const reasons = new Map<string, string>();
  for (const contender of runnable) {
    const reason = await contender.unavailable();
    if (reason !== undefined) reasons.set(contender.id, reason);
  }
  const active = runnable.filter((contender) => !reasons.has(contender.id));
  const windows = new Map<string, WindowResult[]>(active.map((contender) => [contender.id, []]));
  for (let round = 0; round < settings.rounds; round++) {
    await measurePing(server, settings.ping, settings.pingsPerRound);
    const order = active.map((_, i) => active[(i + round) % active.length]!);
    for (const contender of order) {
      const marker = `${settings.keyMarker}:${scenario.id}:${contender.id}:${round}`;
      const result = await runWindow({
        server,
        contender,
        workers: scenario.workers,
        keyOf: (worker) => (scenario.sharedKey ? `${marker}:shared` : `${marker}:${worker}`),
        holdMs: scenario.holdMs,
        windowMs: settings.windowMs,
        drainMs: settings.drainMs,
      });
      await server.deleteKeys(marker);
      windows.get(contender.id)!.push(result);
      const rate = Math.round((result.acquisitions * 1_000) / result.elapsedMs).toLocaleString('en-US');
      const problems = [result.overlaps > 0 ? `${result.overlaps} OVERLAPS` : '', result.errors > 0 ? `${result.errors} errors (${result.firstError})` : '']
        .filter(Boolean)
        .join(', ');
      settings.progress(`${scenario.id} round ${round + 1}/${settings.rounds} ${contender.label}: ${rate}/s${problems ? ` ${problems}` : ''}`);
    }
  }
  return runnable.map((contender) => {
    const reason = reasons.get(contender.id);
    return reason !== undefined
      ? unavailableFigures(contender.id, contender.label, reason)
      : aggregate(contender.id, contender.label, windows.get(contender.id)!);
  });
}
