import { asapScheduler, asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';

const origin = performance.timeOrigin;

/**
 * `asyncScheduler`'s timers with a monotonic `now()`: `performance.timeOrigin + performance.now()`.
 * It reads like an epoch timestamp but never jumps when the wall clock is set, so lease deadlines and
 * wait timeouts measure real elapsed time. Work without a delay goes through `asapScheduler`
 * (setImmediate), because Node turns a zero-delay timer into a 1 ms one.
 */
export const monotonicScheduler: SchedulerLike = {
  now: () => origin + performance.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    return delay === undefined || delay <= 0 ? asapScheduler.schedule(work, 0, state) : asyncScheduler.schedule(work, delay, state);
  },
};
