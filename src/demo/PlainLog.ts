import type { Colors } from '../cli/render/Colors.js';
import type { DemoEvent, DemoState, DemoTally } from './DemoState.js';
import { laneMark, legend, seconds, summaryLines, type DemoHeader, type DemoView } from './DemoView.js';

/** The demo as a log, one line per acquisition or lost lease: for pipes, CI and dumb terminals. */
export class PlainLog implements DemoView {
  readonly #out: NodeJS.WritableStream;
  readonly #state: DemoState;
  readonly #header: DemoHeader;
  readonly #c: Colors;

  constructor(out: NodeJS.WritableStream, state: DemoState, header: DemoHeader, c: Colors) {
    this.#out = out;
    this.#state = state;
    this.#header = header;
    this.#c = c;
    const names = state.workers().map((worker) => worker.name.padEnd(2));
    this.#write([
      c.bold(header.title),
      c.dim(header.backend),
      'Each line is one acquisition, with the end of the hold before it: Redis hands the lock over inside the release.',
      `Lanes: ${legend(c)}`,
      '',
      c.dim(`   time  ${names.join(' ')}  what happened`),
    ]);
  }

  event(event: DemoEvent): void {
    const lanes = this.#state
      .lanes()
      .map((lane) => laneMark(lane, this.#c))
      .join(' ');
    const text = event.kind === 'lost' ? this.#c.red(event.text) : event.text;
    this.#write([`${seconds(event.at)}  ${lanes}  ${text}`]);
  }

  finish(tally: DemoTally, elapsedMs: number): void {
    this.#write(summaryLines(tally, elapsedMs, this.#header.overrunner, this.#c));
  }

  #write(lines: readonly string[]): void {
    this.#out.write(`${lines.join('\n')}\n`);
  }
}
