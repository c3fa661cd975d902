import { jainIndex } from '../fairness.js';
import { merged, summarize, type Histogram, type LatencySummary } from '../histogram.js';
import type { WindowResult } from './window.js';

/** Holds as timed: their percentiles, their mean (what a wait adds up) and the share that ended early. */
export interface HoldSummary extends LatencySummary {
  readonly meanMs: number;
  /** Share of holds that ended before the hold asked for: their timer fired early. */
  readonly shortShare: number;
}

/** One contender's figures in one scenario, over every round it ran. */
export interface ContenderFigures {
  readonly id: string;
  readonly label: string;
  /** Why it did not run; every other field is then empty. */
  readonly unavailable?: string | undefined;
  readonly rounds: number;
  readonly acquisitions: number;
  readonly perSecond: number;
  readonly perSecondByRound: number[];
  readonly acquire: LatencySummary | undefined;
  /** Share of successive acquisitions of a key that went to a different worker. */
  readonly ownerChangeShare: number | undefined;
  readonly newOwnerWait: LatencySummary | undefined;
  /** The same, for each round on its own (in the JSON only): a stall of the machine shows in one round. */
  readonly newOwnerWaitByRound: (LatencySummary | undefined)[];
  readonly switchGap: LatencySummary | undefined;
  /** Holds as timed (see `WindowResult.holds`); undefined with hold 0. */
  readonly hold: HoldSummary | undefined;
  /** Jain's index of the per-worker counts of each window; the lowest (worst) window. */
  readonly jain: number | undefined;
  readonly jainByRound: number[];
  /** Commands sent during the cycles (acquire → release) that started in the window, per such cycle. */
  readonly commandsPerAcquisition: number | undefined;
  readonly subscriptionCommandsPerAcquisition: number | undefined;
  /** CPU µs of the bench process per acquisition (all workers; the same bookkeeping for every contender). */
  readonly clientCpuPerAcquisitionUs: number | undefined;
  /** CPU µs of redis-server per acquisition. */
  readonly redisCpuPerAcquisitionUs: number | undefined;
  readonly overlaps: number;
  readonly timeouts: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly stuck: number;
}

export function aggregate(id: string, label: string, windows: readonly WindowResult[]): ContenderFigures {
  const sum = (pick: (window: WindowResult) => number): number => windows.reduce((total, window) => total + pick(window), 0);
  const acquisitions = sum((w) => w.acquisitions);
  const cycles = sum((w) => w.cycles);
  const successions = sum((w) => w.successions);
  const elapsedMs = sum((w) => w.elapsedMs);
  const jainByRound = windows.map((w) => jainIndex(w.perWorker)).filter((j): j is number => j !== undefined);
  return {
    id,
    label,
    rounds: windows.length,
    acquisitions,
    perSecond: elapsedMs > 0 ? (acquisitions * 1_000) / elapsedMs : 0,
    perSecondByRound: windows.map((w) => (w.elapsedMs > 0 ? (w.acquisitions * 1_000) / w.elapsedMs : 0)),
    acquire: summarize(merged(windows.map((w) => w.acquireLatency))),
    ownerChangeShare: successions > 0 ? sum((w) => w.ownerChanges) / successions : undefined,
    newOwnerWait: summarize(merged(windows.map((w) => w.newOwnerWait))),
    newOwnerWaitByRound: windows.map((w) => summarize(w.newOwnerWait)),
    switchGap: summarize(merged(windows.map((w) => w.switchGap))),
    hold: holdSummary(
      merged(windows.map((w) => w.holds)),
      sum((w) => w.shortHolds),
    ),
    jain: jainByRound.length > 0 ? Math.min(...jainByRound) : undefined,
    jainByRound,
    commandsPerAcquisition: cycles > 0 ? sum((w) => w.commands) / cycles : undefined,
    subscriptionCommandsPerAcquisition: cycles > 0 ? sum((w) => w.subscriptionCommands) / cycles : undefined,
    clientCpuPerAcquisitionUs: acquisitions > 0 ? sum((w) => w.clientCpuUs) / acquisitions : undefined,
    redisCpuPerAcquisitionUs: acquisitions > 0 ? sum((w) => w.redisCpuUs) / acquisitions : undefined,
    overlaps: sum((w) => w.overlaps),
    timeouts: sum((w) => w.timeouts),
    errors: sum((w) => w.errors),
    firstError: windows.find((w) => w.firstError !== undefined)?.firstError,
    stuck: sum((w) => w.stuck),
  };
}

function holdSummary(holds: Histogram, shortHolds: number): HoldSummary | undefined {
  const summary = summarize(holds);
  return summary === undefined ? undefined : { ...summary, meanMs: holds.mean / 1_000, shortShare: shortHolds / summary.count };
}

export function unavailableFigures(id: string, label: string, reason: string): ContenderFigures {
  return {
    id,
    label,
    unavailable: reason,
    rounds: 0,
    acquisitions: 0,
    perSecond: 0,
    perSecondByRound: [],
    acquire: undefined,
    ownerChangeShare: undefined,
    newOwnerWait: undefined,
    newOwnerWaitByRound: [],
    switchGap: undefined,
    hold: undefined,
    jain: undefined,
    jainByRound: [],
    commandsPerAcquisition: undefined,
    subscriptionCommandsPerAcquisition: undefined,
    clientCpuPerAcquisitionUs: undefined,
    redisCpuPerAcquisitionUs: undefined,
    overlaps: 0,
    timeouts: 0,
    errors: 0,
    firstError: undefined,
    stuck: 0,
  };
}
