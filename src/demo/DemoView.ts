import type { Colors } from '../cli/render/Colors.js';
import type { DemoEvent, DemoTally, LaneState } from './DemoState.js';

/** Where the demo tells what happens: a board redrawn in place, or a plain log. */
export interface DemoView {
  /** One acquisition (with the end of the hold before it) or one lost lease. */
  event(event: DemoEvent): void;
  /** The run is over: the last frame, then the summary. */
  finish(tally: DemoTally, elapsedMs: number): void;
}

/** What both views say before the first event. */
export interface DemoHeader {
  readonly title: string;
  /** Which Redis, and where it came from. */
  readonly backend: string;
  /** The worker that runs past a short lease now and then, on purpose. */
  readonly overrunner: string;
}

/** The marks of a worker's lane, each two columns wide. */
export function laneMark(state: LaneState, c: Colors): string {
  switch (state) {
    case 'idle':
      return '  ';
    case 'waiting':
      return c.yellow('··');
    case 'holding':
      return c.green('██');
    case 'lost':
      return c.red('✗ ');
  }
}

/** The legend of the lane marks. */
export function legend(c: Colors): string {
  return `${laneMark('holding', c)} holds the lock   ${laneMark('waiting', c)} waits for it   ${laneMark('lost', c)}lost its lease (its work is stopped first)`;
}

/** Seconds since the start, as the log's time column shows them: `  2.345`. */
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3).padStart(7);
}

/** The closing lines of both views. */
export function summaryLines(tally: DemoTally, elapsedMs: number, overrunner: string, c: Colors): string[] {
  const tokens =
    tally.firstToken === undefined
      ? 'none drawn'
      : tally.tokensIncreasing
        ? `strictly increasing, ${tally.firstToken} → ${tally.lastToken ?? tally.firstToken}`
        : c.red('NOT strictly increasing');
  const overlaps = tally.overlaps === 0 ? '0: never two holders at once' : c.red(`${tally.overlaps}: two workers held the lock at once`);
  return [
    '',
    c.bold(`Done after ${(elapsedMs / 1000).toFixed(1)} s.`),
    `  acquisitions     ${tally.acquisitions}, ${tally.handOffs} of them handed over from another worker`,
    `  overlaps         ${overlaps}`,
    `  fencing tokens   ${tokens}`,
    `  lost leases      ${tally.lost} detected (${overrunner} runs past its 250 ms lease every fourth hold, on purpose)`,
  ];
}
