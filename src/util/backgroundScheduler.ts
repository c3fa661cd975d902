import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { monotonicScheduler } from './monotonicScheduler.js';

/**
 * `monotonicScheduler`'s clock and timing, with timers that do not keep the process alive: the client's
 * default scheduler. While the client holds or waits for something it keeps the process alive with one
 * handle of its own (`KeepAlive`), so that a finished program exits without `close()`.
 */
export const backgroundScheduler: SchedulerLike = {
  now: () => monotonicScheduler.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    return new BackgroundAction(work).schedule(state, delay);
  },
};

/** One scheduled piece of work; it reschedules itself when `work` calls `this.schedule`, as RxJS's actions do. */
class BackgroundAction<T> extends Subscription implements SchedulerAction<T> {
  readonly #work: (this: SchedulerAction<T>, state?: T) => void;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #state: T | undefined;

  constructor(work: (this: SchedulerAction<T>, state?: T) => void) {
    super(() => this.#clear());
    this.#work = work;
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.#state = state;
    this.#clear();
    // Node turns a zero-delay timer into a 1 ms one: work without a delay goes through setImmediate.
    if (delay > 0) this.#timer = setTimeout(this.#run, delay).unref();
    else this.#immediate = setImmediate(this.#run).unref();
    return this;
  }

  readonly #run = (): void => {
    this.#timer = undefined;
    this.#immediate = undefined;
    if (this.closed) return;
    this.#work.call(this, this.#state);
  };

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    this.#timer = undefined;
    this.#immediate = undefined;
  }
}
