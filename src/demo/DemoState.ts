/** What one worker is doing, as its lane shows it. */
export type LaneState = 'idle' | 'waiting' | 'holding' | 'lost';

/** One worker's lane and tallies. */
export interface WorkerView {
  readonly name: string;
  readonly state: LaneState;
  /** When it entered that state, in ms since the demo started. */
  readonly since: number;
  readonly acquisitions: number;
  readonly lost: number;
  /** The token of its current hold, or of its last one. */
  readonly token: number | undefined;
  /** How long its current hold's work runs. */
  readonly workMs: number | undefined;
}

/** One line of the demo's story: an acquisition (with the hand-off that led to it) or a lost lease. */
export interface DemoEvent {
  /** ms since the demo started. */
  readonly at: number;
  readonly kind: 'acquired' | 'lost';
  readonly text: string;
}

/** The figures the demo ends with. */
export interface DemoTally {
  readonly acquisitions: number;
  /** Acquisitions that took the lock from another worker's hold (the rest found it free). */
  readonly handOffs: number;
  /** Times a worker's work started while another worker's was still running. Must stay 0. */
  readonly overlaps: number;
  readonly tokensIncreasing: boolean;
  readonly firstToken: number | undefined;
  readonly lastToken: number | undefined;
  readonly lost: number;
}

interface Worker {
  state: LaneState;
  since: number;
  acquisitions: number;
  lost: number;
  token: number | undefined;
  workMs: number | undefined;
}

/** The last hold, and whether its lease was lost (else it was, or is being, released). */
type LastHold = { readonly worker: number; readonly lost: boolean } | undefined;

/**
 * The demo's state, fed by the workers as things happen in this process, and told as one story in the order
 * they happened in Redis. A release hands the lock to the next waiter inside the same script, so the next
 * holder's grant can reach this process before the releaser's own reply: each acquisition is told together
 * with the end of the hold before it ("w1 released, w2 acquired"), which Redis ordered, instead of as two
 * lines in the order the replies arrived.
 */
export class DemoState {
  readonly #workers: Worker[];
  readonly #now: () => number;
  readonly #startedAt: number;
  #last: LastHold;
  /** Workers whose work runs right now: more than one is an overlap. */
  #working = 0;
  #acquisitions = 0;
  #handOffs = 0;
  #overlaps = 0;
  #lost = 0;
  #firstToken: number | undefined;
  #lastToken: number | undefined;
  #tokensIncreasing = true;

  constructor(workers: number, now: () => number) {
    this.#now = now;
    this.#startedAt = now();
    this.#workers = Array.from({ length: workers }, () => ({
      state: 'idle',
      since: 0,
      acquisitions: 0,
      lost: 0,
      token: undefined,
      workMs: undefined,
    }));
  }

  /** ms since the demo started. */
  elapsed(): number {
    return this.#now() - this.#startedAt;
  }

  waiting(worker: number): void {
    this.#enter(worker, 'waiting');
  }

  /** The worker holds the lock and starts its work; answers the line that tells it. */
  acquired(worker: number, token: number | undefined, waitedMs: number, note: string): DemoEvent {
    if (++this.#working > 1) this.#overlaps++;
    this.#acquisitions++;
    if (token !== undefined) {
      if (this.#lastToken !== undefined && token <= this.#lastToken) this.#tokensIncreasing = false;
      this.#firstToken ??= token;
      this.#lastToken = token;
    }
    const state = this.#enter(worker, 'holding');
    state.acquisitions++;
    state.token = token;
    const previous = this.#last;
    this.#last = { worker, lost: false };
    const got = `${nameOf(worker)} acquired${token === undefined ? '' : ` token ${token}`} (waited ${Math.round(waitedMs)} ms); ${note}`;
    if (previous !== undefined && previous.worker !== worker) this.#handOffs++;
    const text = previous === undefined ? got : `${nameOf(previous.worker)} ${previous.lost ? 'lost it' : 'released'}, ${got}`;
    return this.#event('acquired', text);
  }

  /** Sets the length of the worker's current work, for the board. */
  working(worker: number, workMs: number): void {
    const state = this.#workers[worker];
    if (state !== undefined) state.workMs = workMs;
  }

  /** The worker's work ended (done or torn down): its release is on its way. */
  workEnded(worker: number): void {
    this.#working--;
    this.#enter(worker, 'idle').workMs = undefined;
  }

  /** The worker's lease was lost: its work was torn down first. */
  lost(worker: number, reason: string): DemoEvent {
    this.#lost++;
    const state = this.#enter(worker, 'lost');
    state.lost++;
    state.workMs = undefined;
    if (this.#last?.worker === worker) this.#last = { worker, lost: true };
    return this.#event('lost', `${nameOf(worker)} LOST its lease (${reason}): its work was stopped`);
  }

  /** The run is over: nobody holds or waits any more. */
  stopped(): void {
    for (const worker of this.#workers) {
      worker.state = 'idle';
      worker.workMs = undefined;
    }
  }

  workers(): WorkerView[] {
    return this.#workers.map((worker, index) => ({ name: nameOf(index), ...worker }));
  }

  lanes(): LaneState[] {
    return this.#workers.map((worker) => worker.state);
  }

  tally(): DemoTally {
    return {
      acquisitions: this.#acquisitions,
      handOffs: this.#handOffs,
      overlaps: this.#overlaps,
      tokensIncreasing: this.#tokensIncreasing,
      firstToken: this.#firstToken,
      lastToken: this.#lastToken,
      lost: this.#lost,
    };
  }

  #enter(worker: number, state: LaneState): Worker {
    const entry = this.#workers[worker];
    if (entry === undefined) throw new RangeError(`rxlock demo: no worker ${worker}`);
    entry.state = state;
    entry.since = this.elapsed();
    return entry;
  }

  #event(kind: DemoEvent['kind'], text: string): DemoEvent {
    return { at: this.elapsed(), kind, text };
  }
}

/** `w1` for worker 0. */
export function nameOf(worker: number): string {
  return `w${worker + 1}`;
}
