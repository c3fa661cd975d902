import type { BenchResults, LockScenarioResult } from '../results.js';
import type { ContenderFigures } from '../scenarios/aggregate.js';
import { bytes, count, fixed, ms, percent, range } from './format.js';

/** A table as data: printed with cli-table3 on the terminal, or as Markdown for the README. */
export interface TableData {
  readonly title: string;
  readonly head: string[];
  readonly rows: string[][];
  /** Right-align every column but the first (figures); false for tables of text. @default true */
  readonly numeric?: boolean;
}

type Row = [figure: string, value: (figures: ContenderFigures) => string];

const UNAVAILABLE = 'n/a';

function contenderTable(title: string, figures: readonly ContenderFigures[], rows: readonly Row[]): TableData {
  return {
    title,
    head: ['', ...figures.map((f) => f.label)],
    rows: rows.map(([name, value]) => [name, ...figures.map((f) => (f.unavailable === undefined ? value(f) : UNAVAILABLE))]),
  };
}

function uncontendedTable(result: LockScenarioResult): TableData {
  const floor = result.figures.find((f) => f.id === 'floor' && f.unavailable === undefined);
  const ratio = (f: ContenderFigures): number | undefined => (floor !== undefined && floor.perSecond > 0 ? f.perSecond / floor.perSecond : undefined);
  const roundRatios = (f: ContenderFigures): number[] =>
    floor === undefined ? [] : f.perSecondByRound.map((rate, i) => rate / (floor.perSecondByRound[i] ?? Number.NaN)).filter(Number.isFinite);
  return contenderTable(result.scenario.title, result.figures, [
    ['ops/s', (f) => count(f.perSecond)],
    ['× floor', (f) => fixed(ratio(f))],
    ['× floor, per round', (f) => range(roundRatios(f), (v) => fixed(v))],
    ['acquire p50 (ms)', (f) => ms(f.acquire?.p50Ms)],
    ['acquire p99 (ms)', (f) => ms(f.acquire?.p99Ms)],
    ['commands / cycle', (f) => fixed(f.commandsPerAcquisition)],
    ['client CPU / cycle (µs)', (f) => count(f.clientCpuPerAcquisitionUs)],
    ['Redis CPU / cycle (µs)', (f) => count(f.redisCpuPerAcquisitionUs)],
    ['overlaps', (f) => count(f.overlaps)],
    ['errors', (f) => errors(f)],
  ]);
}

/** The PING p50s a switch gap is shown against: back to back (the target's unit), and after a pause. */
interface PingScale {
  readonly backToBackMs: number | undefined;
  readonly afterPauseMs: number | undefined;
}

function contendedTable(result: LockScenarioResult, ping: PingScale): TableData {
  const times = (gap: number, pingMs: number | undefined): string => (pingMs === undefined ? '–' : fixed(gap / pingMs, 1));
  const gapInPings = (f: ContenderFigures): string => {
    const gap = f.switchGap?.p50Ms;
    return gap === undefined ? ms(gap) : `${ms(gap)} (${times(gap, ping.backToBackMs)}×; ${times(gap, ping.afterPauseMs)}×)`;
  };
  const holds: Row[] =
    result.scenario.holdMs > 0
      ? [
          [
            `hold (${result.scenario.holdMs} ms timer) as timed, p50 / mean / p99 / max (ms)`,
            (f) => `${ms(f.hold?.p50Ms)} / ${ms(f.hold?.meanMs)} / ${ms(f.hold?.p99Ms)} / ${ms(f.hold?.maxMs)}`,
          ],
          [`  of which shorter than ${result.scenario.holdMs} ms (the timer fired early)`, (f) => percent(f.hold?.shortShare)],
        ]
      : [];
  return contenderTable(result.scenario.title, result.figures, [
    ['acquisitions/s', (f) => count(f.perSecond)],
    ['owner changes', (f) => percent(f.ownerChangeShare)],
    ['new-owner wait p50 (ms)', (f) => ms(f.newOwnerWait?.p50Ms)],
    ['new-owner wait p99 (ms)', (f) => ms(f.newOwnerWait?.p99Ms)],
    ['new-owner wait max (ms)', (f) => ms(f.newOwnerWait?.maxMs)],
    ...holds,
    ['switch gap p50 (ms; × PING back to back; × PING after a pause)', gapInPings],
    ["Jain's index (worst round)", (f) => fixed(f.jain, 3)],
    ['commands / acquisition', (f) => fixed(f.commandsPerAcquisition)],
    ['  of which (UN)SUBSCRIBE', (f) => fixed(f.subscriptionCommandsPerAcquisition)],
    ['client CPU / acquisition (µs)', (f) => count(f.clientCpuPerAcquisitionUs)],
    ['Redis CPU / acquisition (µs)', (f) => count(f.redisCpuPerAcquisitionUs)],
    ['overlaps', (f) => count(f.overlaps)],
    ['library timeouts', (f) => count(f.timeouts)],
    ['errors', (f) => errors(f)],
  ]);
}

function errors(f: ContenderFigures): string {
  const stuck = f.stuck > 0 ? ` (${f.stuck} stuck)` : '';
  return `${count(f.errors)}${stuck}`;
}

/** Every table of a run, in the order the issue lists the scenarios, then the targets. */
export function resultTables(results: BenchResults): TableData[] {
  const tables: TableData[] = [];
  const ping: PingScale = { backToBackMs: results.ping?.p50Ms, afterPauseMs: results.pingAfterPause?.p50Ms };
  for (const result of results.lockScenarios) {
    tables.push(result.scenario.id === 'uncontended' ? uncontendedTable(result) : contendedTable(result, ping));
  }
  if (results.manyHeld.length > 0) {
    const held = results.manyHeld;
    const value = (pick: (h: (typeof held)[number]) => string): string[] => held.map((h) => (h.unavailable === undefined ? pick(h) : UNAVAILABLE));
    const first = held[0]!;
    tables.push({
      title: `Many held locks: one client holds ${first.locks.toLocaleString('en-US')} locks (lock$ subscriptions), watchdogTimeoutMs ${results.info.options.heldWatchdogMs}`,
      head: ['', ...held.map((h) => h.label)],
      rows: [
        ['locks held at the end', ...value((h) => count(h.held))],
        ['locks lost while held', ...value((h) => count(h.lost))],
        ['time to hold all (ms)', ...value((h) => ms(h.acquireAllMs))],
        ['renewal ticks observed', ...value((h) => count(h.ticks))],
        [
          'commands / tick (mean, max)',
          ...value((h) => (h.commandsPerTick === undefined ? '–' : `${fixed(h.commandsPerTick.mean, 1)}, ${count(h.commandsPerTick.max)}`)),
        ],
        ['event-loop delay, worst tick p50 (ms)', ...value((h) => ms(h.eventLoopDelay?.p50Ms))],
        ['event-loop delay, worst tick p99 (ms)', ...value((h) => ms(h.eventLoopDelay?.p99Ms))],
        ['event-loop delay, worst tick max (ms)', ...value((h) => ms(h.eventLoopDelay?.maxMs))],
        ['heap per held lock', ...value((h) => bytes(h.heapPerLockBytes))],
        ['keys left after release', ...value((h) => count(h.keysLeft))],
        ['errors', ...value((h) => count(h.errors))],
      ],
    });
  }
  if (results.endurance.length > 0) {
    const runs = results.endurance;
    const value = (pick: (r: (typeof runs)[number]) => string): string[] => runs.map((r) => (r.unavailable === undefined ? pick(r) : UNAVAILABLE));
    tables.push({
      title: `Endurance: ${runs[0]!.cycles.toLocaleString('en-US')} acquire/release cycles, 16 clients on 8 keys`,
      head: ['', ...runs.map((r) => r.label)],
      rows: [
        ['cycles/s', ...value((r) => count(r.cyclesPerSecond))],
        ['heap after GC, start → end', ...value((r) => `${bytes(r.heapStartBytes)} → ${bytes(r.heapEndBytes)}`)],
        ['heap change', ...value((r) => percent(r.heapChange))],
        ['channels left (PUBSUB CHANNELS)', ...value((r) => count(r.channelsLeft))],
        ['subscriptions left (PUBSUB NUMSUB)', ...value((r) => count(r.subscriptionsLeft))],
        ['keys left', ...value((r) => count(r.keysLeft))],
        ['connections left after close()', ...value((r) => count(r.connectionsLeft))],
        ['overlaps', ...value((r) => count(r.overlaps))],
        ['errors', ...value((r) => count(r.errors))],
      ],
    });
  }
  if (results.targets.length > 0) {
    tables.push({
      title: 'Targets (rxlock, this run)',
      head: ['target', 'contender', 'measured', 'met'],
      numeric: false,
      rows: results.targets.map((t) => [t.target, t.contender, t.measured, t.met === undefined ? '–' : t.met ? 'yes' : 'NO']),
    });
  }
  return tables;
}
