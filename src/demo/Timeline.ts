import pc from 'picocolors';

type LaneState = 'idle' | 'waiting' | 'holding';

const LANE: Record<LaneState, string> = { idle: '  ', waiting: pc.yellow('··'), holding: pc.green('██') };

/** Prints the demo as it happens: one line per event, with a lane per worker (██ holds, ·· waits). */
export class Timeline {
  readonly #out: NodeJS.WritableStream;
  readonly #lanes: LaneState[];
  readonly #startedAt = performance.now();

  constructor(out: NodeJS.WritableStream, workers: number) {
    this.#out = out;
    this.#lanes = Array.from({ length: workers }, () => 'idle');
  }

  header(title: string, backend: string): void {
    this.#write(pc.bold(title));
    this.#write(pc.dim(backend));
    const names = this.#lanes.map((_, i) => `w${i + 1}`.padEnd(2)).join(' ');
    this.#write(pc.dim(`\n   time  ${names}  event`));
  }

  waiting(worker: number): void {
    this.#lanes[worker] = 'waiting';
  }

  acquired(worker: number, token: number | undefined, waitedMs: number, note: string): void {
    this.#lanes[worker] = 'holding';
    this.#event(`${pc.green(`w${worker + 1} acquired`)} token ${token ?? '-'} after waiting ${Math.round(waitedMs)} ms; ${note}`);
  }

  /**
   * The worker's work ended and its release is on its way. Its lane empties now, without a line of its own:
   * the release hands the lock to the next waiter, whose "acquired" line can come before "released".
   */
  releasing(worker: number): void {
    this.#lanes[worker] = 'idle';
  }

  released(worker: number): void {
    this.#lanes[worker] = 'idle';
    this.#event(`w${worker + 1} released`);
  }

  lost(worker: number, reason: string): void {
    this.#lanes[worker] = 'idle';
    this.#event(pc.red(`w${worker + 1} LOST the lock (${reason}): its work was torn down before anyone else got in`));
  }

  summary(summary: { acquisitions: number; overlaps: number; tokensIncreasing: boolean; lost: number }): void {
    this.#write('');
    this.#write(
      pc.bold(`${summary.acquisitions} acquisitions, ${summary.overlaps} overlapping holders, `) +
        `fencing tokens ${summary.tokensIncreasing ? 'strictly increasing' : pc.red('NOT increasing')}, ${summary.lost} lost lease(s) detected.`,
    );
  }

  #event(text: string): void {
    const seconds = ((performance.now() - this.#startedAt) / 1000).toFixed(3).padStart(7);
    this.#write(`${seconds}  ${this.#lanes.map((lane) => LANE[lane]).join(' ')}  ${text}`);
  }

  #write(line: string): void {
    this.#out.write(`${line}\n`);
  }
}
