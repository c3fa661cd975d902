import { createLogUpdate } from 'log-update';
import type { Colors } from '../cli/render/Colors.js';
import { plural } from '../cli/render/format.js';
import { renderTable } from '../cli/render/table.js';
import type { DemoEvent, DemoState, DemoTally, WorkerView } from './DemoState.js';
import { laneMark, legend, seconds, summaryLines, type DemoHeader, type DemoView } from './DemoView.js';

/** How many of the latest events the board keeps on screen. */
const RECENT = 6;
/** How often the board is redrawn: the waits and the clock move between events. */
const REDRAW_MS = 100;

/**
 * The demo as a board redrawn in place on a terminal: one row per worker with its lane, what it is doing and
 * its tallies, the latest events, the legend and a status line. The last frame stays on screen, and the
 * summary follows it.
 */
export class LiveBoard implements DemoView {
  readonly #state: DemoState;
  readonly #header: DemoHeader;
  readonly #durationMs: number;
  readonly #c: Colors;
  readonly #draw: ReturnType<typeof createLogUpdate>;
  readonly #out: NodeJS.WritableStream;
  readonly #recent: DemoEvent[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(out: NodeJS.WriteStream, state: DemoState, header: DemoHeader, durationMs: number, c: Colors) {
    this.#out = out;
    this.#state = state;
    this.#header = header;
    this.#durationMs = durationMs;
    this.#c = c;
    this.#draw = createLogUpdate(out);
    this.#timer = setInterval(() => this.#redraw(), REDRAW_MS);
    this.#redraw();
  }

  event(event: DemoEvent): void {
    this.#recent.push(event);
    if (this.#recent.length > RECENT) this.#recent.shift();
  }

  finish(tally: DemoTally, elapsedMs: number): void {
    clearInterval(this.#timer);
    this.#redraw();
    this.#draw.done();
    this.#out.write(`${summaryLines(tally, elapsedMs, this.#header.overrunner, this.#c).join('\n')}\n`);
  }

  #redraw(): void {
    const c = this.#c;
    const elapsed = this.#state.elapsed();
    const tally = this.#state.tally();
    const rows = this.#state
      .workers()
      .map((worker) => [
        c.bold(worker.name),
        laneMark(worker.state, c),
        this.#doing(worker, elapsed),
        `${worker.acquisitions} acquired`,
        worker.lost > 0 ? c.red(`${worker.lost} lost`) : '',
      ]);
    const events = this.#recent.map((event) => `${seconds(event.at)}  ${event.kind === 'lost' ? c.red(event.text) : event.text}`);
    const status = [
      `${(Math.min(elapsed, this.#durationMs) / 1000).toFixed(1)} s of ${(this.#durationMs / 1000).toFixed(1)} s`,
      plural(tally.acquisitions, 'acquisition'),
      tally.overlaps === 0 ? '0 overlaps' : c.red(`${tally.overlaps} overlaps`),
      tally.tokensIncreasing ? 'fencing tokens increasing' : c.red('fencing tokens NOT increasing'),
      plural(tally.lost, 'lost lease'),
    ];
    this.#draw(
      [
        c.bold(this.#header.title),
        c.dim(this.#header.backend),
        '',
        // The table's head row is empty: the rows say what they are.
        ...indent(renderTable(['', '', '', '', ''], rows).split('\n').slice(1)),
        '',
        c.dim('  Latest, oldest first (each acquisition with the end of the hold before it):'),
        ...(events.length === 0 ? [c.dim('    nothing yet')] : indent(events)),
        '',
        `  ${legend(c)}`,
        `  ${status.join(' · ')}`,
      ].join('\n'),
    );
  }

  #doing(worker: WorkerView, now: number): string {
    const forMs = Math.max(0, Math.round(now - worker.since));
    switch (worker.state) {
      case 'holding':
        return `holds it${worker.token === undefined ? '' : `, token ${worker.token}`}${worker.workMs === undefined ? '' : `, works ${worker.workMs} ms`}`;
      case 'waiting':
        return `waits, ${forMs} ms so far`;
      case 'lost':
        return this.#c.red('lost its lease; its work was stopped');
      case 'idle':
        return this.#c.dim('idle');
    }
  }
}

function indent(lines: readonly string[]): string[] {
  return lines.map((line) => `  ${line}`);
}
