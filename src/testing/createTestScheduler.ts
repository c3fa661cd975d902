import { deepStrictEqual } from 'node:assert';
import { TestScheduler } from 'rxjs/testing';

/** Options of `createTestScheduler`. */
export interface TestSchedulerOptions {
  /**
   * The virtual time (ms) after which `run()` stops and throws, if anything is still scheduled. A lock stream
   * that is never unsubscribed renews for ever, and a plain `TestScheduler` would spin on it without end.
   * @default 60_000
   */
  maxFrames?: number | undefined;
  /**
   * Compares what a stream did with what the marbles expect; throws when they differ.
   * @default node:assert's deepStrictEqual, on errors reduced to their class, message and own fields
   */
  assert?: ((actual: unknown, expected: unknown) => void) | undefined;
}

/** Thrown by `run()` when virtual time reached `maxFrames` with work still scheduled. */
export class VirtualTimeLimitError extends Error {
  /** The bound that was reached, in virtual ms. */
  readonly maxFrames: number;

  /** The error for a run stopped at `maxFrames`. */
  constructor(maxFrames: number) {
    super(
      `rxlock/testing: virtual time reached ${String(maxFrames)} ms with timers still scheduled; a lock stream that is not unsubscribed ` +
        `renews for ever. Give expectObservable an unsubscription marble ('^ 100ms !'), end the subscription in the test, or raise maxFrames.`,
    );
    this.maxFrames = maxFrames;
  }

  /** `'VirtualTimeLimitError'`. */
  override get name(): string {
    return 'VirtualTimeLimitError';
  }
}

/**
 * A `TestScheduler` for marble tests of code that uses rxlock's streams (with `createMemoryStore({ scheduler })`
 * and `createLockClient({ store, scheduler })`): `run()` works as RxJS's, but stops with a
 * `VirtualTimeLimitError` at `maxFrames` instead of spinning for ever on a lock that is never released.
 *
 * @example
 * const scheduler = createTestScheduler();
 * scheduler.run(({ expectObservable }) => {
 *   const store = createMemoryStore({ scheduler });
 *   const client = createLockClient({ store, scheduler });
 *   expectObservable(client.lock$('x').pipe(map(() => 'held')), '^ 10ms !').toBe('h', { h: 'held' });
 * });
 */
export function createTestScheduler(options: TestSchedulerOptions = {}): TestScheduler {
  const { maxFrames = 60_000, assert = compare } = options;
  if (typeof maxFrames !== 'number' || !(maxFrames > 0)) {
    throw new RangeError(`rxlock/testing: createTestScheduler: option "maxFrames" must be a positive number, got ${String(maxFrames)}`);
  }
  return new BoundedTestScheduler(assert, maxFrames);
}

/** `run()` as RxJS's, with its flush bounded by the limit (run() itself lifts `maxFrames` to Infinity). */
class BoundedTestScheduler extends TestScheduler {
  readonly #limit: number;

  constructor(assert: (actual: unknown, expected: unknown) => void, limit: number) {
    super(assert);
    this.#limit = limit;
  }

  override flush(): void {
    const previous = this.maxFrames;
    this.maxFrames = Math.min(previous, this.#limit);
    try {
      super.flush();
    } finally {
      this.maxFrames = previous;
    }
    const next = this.actions[0];
    if (next !== undefined && next.delay > this.#limit) {
      for (const action of this.actions.splice(0)) action.unsubscribe();
      throw new VirtualTimeLimitError(this.#limit);
    }
  }
}

function compare(actual: unknown, expected: unknown): void {
  deepStrictEqual(comparable(actual), comparable(expected));
}

/** Errors compare by class, message and their own fields (stacks differ). */
function comparable(value: unknown): unknown {
  if (value instanceof Error) return { class: value.constructor.name, ...Object.fromEntries(Object.entries(value)), message: value.message };
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}
