import { describeValue } from '../../util/describeValue.js';
import { assertOptions } from '../../util/validate.js';
import { optionKeys } from '../../util/optionKeys.js';

/**
 * How a spin lock waits between attempts: Redisson's `LockOptions.ExponentialBackOff`. The first pause is
 * `initialMs`; each next one is the last times `multiplier` (plus, with `jitter`, a random whole number of
 * ms below the number of failures so far, as Redisson adds), at most `maxMs`. Redisson's `ConstantBackOff(d)`
 * is `{ initialMs: d, maxMs: d }`.
 */
export interface BackOff {
  /** The first pause, in ms. @default 1 */
  initialMs?: number | undefined;
  /** The longest pause, in ms. @default 128 */
  maxMs?: number | undefined;
  /** How much each pause grows. @default 2 */
  multiplier?: number | undefined;
  /** Spread the pauses of many waiters apart a little (off in marble tests, for frames that never move). @default true */
  jitter?: boolean | undefined;
}

const BACK_OFF_KEYS = optionKeys<BackOff>({ initialMs: true, maxMs: true, multiplier: true, jitter: true });

/** The pauses of one wait, one after another. */
export type BackOffPolicy = () => number;

/** Checks `backOff` (a TypeError or RangeError naming the field) and returns a maker of policies. */
export function backOffOf(backOff: BackOff | undefined, where: string): () => BackOffPolicy {
  assertOptions(backOff, BACK_OFF_KEYS, `${where} backOff`);
  const { initialMs = 1, maxMs = 128, multiplier = 2, jitter = true } = backOff ?? {};
  for (const [field, value] of [
    ['initialMs', initialMs],
    ['maxMs', maxMs],
    ['multiplier', multiplier],
  ] as const) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`rxlock: ${where}: option "backOff.${field}" must be a positive whole number, got ${describeValue(value)}`);
    }
  }
  if (maxMs < initialMs)
    throw new RangeError(`rxlock: ${where}: option "backOff.maxMs" (${String(maxMs)}) is below "backOff.initialMs" (${String(initialMs)})`);
  if (typeof jitter !== 'boolean') throw new TypeError(`rxlock: ${where}: option "backOff.jitter" must be a boolean, got ${describeValue(jitter)}`);
  return () => {
    let next = initialMs;
    let failures = 0;
    return () => {
      if (next === maxMs) return maxMs;
      const pause = next;
      failures++;
      next = Math.min(maxMs, next * multiplier + (jitter ? Math.floor(Math.random() * failures) : 0));
      return pause;
    };
  };
}
