import { describeValue } from '../../util/describeValue.js';
import { assertCount, assertDuration, assertOptions, assertSignal } from '../../util/validate.js';

/** Checks a number of permits to acquire: an integer of at least 1 (0, negatives, fractions, NaN and non-numbers are refused). */
export function assertPermits(permits: unknown, where: string): asserts permits is number {
  assertCount(permits, 'permits', where, 1);
}

/** Checks a change of the permit count: a non-zero safe integer (negative takes permits away, as Redisson's `addPermits(-n)`). */
export function assertPermitChange(permits: unknown, where: string): asserts permits is number {
  if (typeof permits !== 'number') throw new TypeError(`rxlock: ${where}: "permits" must be a number, got ${describeValue(permits)}`);
  if (!Number.isSafeInteger(permits) || permits === 0) {
    throw new RangeError(`rxlock: ${where}: "permits" must be a non-zero integer, got ${describeValue(permits)}`);
  }
}

/** The options every permit acquisition takes. */
export interface PermitWaitOptions {
  waitMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Checks `waitMs` and `signal`, and that no unknown option is present. */
export function checkWaitOptions(options: PermitWaitOptions | undefined, known: readonly string[], where: string): void {
  assertOptions(options, known, where);
  if (options === undefined) return;
  if (options.waitMs !== undefined) assertDuration(options.waitMs, 'waitMs', where, { min: 0 });
  assertSignal(options.signal, where);
}
