import type { SchedulerLike } from 'rxjs';
import { optionKeys } from '../util/optionKeys.js';

/** Options of `createRedlockClient`: the lock client's settings that make sense over independent masters. */
export interface RedlockClientOptions {
  /**
   * TTL of a lock on each instance; the watchdog renews it on every instance every third of this while subscribed.
   * @default 30000
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * Times every renewal, retry and timeout, and reads the time.
   * @default asyncScheduler's timers with a monotonic now()
   */
  scheduler?: SchedulerLike | undefined;
  /**
   * This client's id: the first half of every `<clientId>:<owner>` field it writes.
   * @default a random UUID
   */
  clientId?: string | undefined;
  /**
   * Prepended to every lock name.
   * @default ''
   */
  keyPrefix?: string | undefined;
  /**
   * Share of the TTL kept as the clock-drift allowance: a grant is valid for `TTL − elapsed − (TTL × driftFactor + driftMs)`,
   * and one that took longer than that to win a majority is released again at once.
   * @default 0.01 (Redlock's)
   */
  driftFactor?: number | undefined;
  /**
   * Fixed part of the drift allowance, in ms.
   * @default 2 (Redlock's)
   */
  driftMs?: number | undefined;
  /**
   * How long a command may go unanswered by the vote as a whole before its outcome counts as unknown.
   * Must be longer than `instanceTimeoutMs`.
   * @default 5000
   */
  commandTimeoutMs?: number | undefined;
  /**
   * How long one instance may take to answer before its vote counts as failed, so that a dead instance
   * slows an attempt down by at most this much. Keep it small against the TTL.
   * @default 500
   */
  instanceTimeoutMs?: number | undefined;
}

export const REDLOCK_OPTION_KEYS = optionKeys<RedlockClientOptions>({
  watchdogTimeoutMs: true,
  scheduler: true,
  clientId: true,
  keyPrefix: true,
  driftFactor: true,
  driftMs: true,
  commandTimeoutMs: true,
  instanceTimeoutMs: true,
});
