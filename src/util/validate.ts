import { describeValue } from './describeValue.js';

/** The longest name accepted, in UTF-16 code units. Redis allows more; a lock name this long is a bug. */
export const MAX_NAME_LENGTH = 512;

/** The largest duration accepted: what both setTimeout and a sane PEXPIRE can hold (about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Checks a lock name. Names may contain a Redis Cluster hash tag (`{tag}`) only when it is well formed,
 * because Redisson's key rule (wrap the name in braces unless it already has some) must put every key of
 * one primitive in the same slot.
 */
export function assertName(name: unknown, where: string): asserts name is string {
  if (typeof name !== 'string') {
    throw new TypeError(`rxlock: ${where}: the name must be a string, got ${describeValue(name)}`);
  }
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw new TypeError(`rxlock: ${where}: bad name ${describeValue(name)}: ${problem}`);
  }
}

function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_NAME_LENGTH) return `it is longer than ${MAX_NAME_LENGTH} characters`;
  if (!name.isWellFormed()) return 'it contains an unpaired UTF-16 surrogate';
  if (CONTROL_CHARACTERS.test(name)) return 'it contains a control character';
  const open = name.indexOf('{');
  if (open === -1) {
    return name.includes('}') ? 'it has "}" without a "{" before it, which breaks the cluster hash tag' : undefined;
  }
  const close = name.indexOf('}', open + 1);
  if (close === -1) return 'it has "{" without a closing "}", which breaks the cluster hash tag';
  if (close === open + 1) return 'it has an empty hash tag "{}"';
  return undefined;
}

export interface DurationRule {
  /** Smallest allowed value. */
  min: number;
}

/** Checks a duration in milliseconds: a finite integer in [min, MAX_DURATION_MS]. */
export function assertDuration(value: unknown, option: string, where: string, rule: DurationRule): asserts value is number {
  if (typeof value !== 'number') {
    throw new TypeError(`rxlock: ${where}: option "${option}" must be a number of milliseconds, got ${describeValue(value)}`);
  }
  if (!Number.isFinite(value) || !Number.isInteger(value) || value < rule.min || value > MAX_DURATION_MS) {
    const wanted = rule.min === 0 ? 'a non-negative integer' : `an integer of at least ${rule.min}`;
    throw new RangeError(`rxlock: ${where}: option "${option}" must be ${wanted} (ms, at most ${MAX_DURATION_MS}), got ${describeValue(value)}`);
  }
}

/** Checks a count (permits, latch count): an integer in [min, 2^53). */
export function assertCount(value: unknown, option: string, where: string, min: number): asserts value is number {
  if (typeof value !== 'number') {
    throw new TypeError(`rxlock: ${where}: "${option}" must be a number, got ${describeValue(value)}`);
  }
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`rxlock: ${where}: "${option}" must be an integer of at least ${min}, got ${describeValue(value)}`);
  }
}

/** Checks an options bag: undefined or a plain object whose keys are all known. */
export function assertOptions(options: unknown, known: readonly string[], where: string): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`rxlock: ${where}: options must be an object, got ${describeValue(options)}`);
  }
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(
      `rxlock: ${where}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${known.join(', ')})`,
    );
  }
}

/** Checks an explicit owner id: it becomes part of the Redis hash field `<clientId>:<owner>`. */
export function assertOwner(owner: unknown, where: string): asserts owner is string {
  if (typeof owner !== 'string') {
    throw new TypeError(`rxlock: ${where}: option "owner" must be a string, got ${describeValue(owner)}`);
  }
  if (owner.length === 0 || owner.length > 256 || !/^[\w.@/-]+$/.test(owner) || owner.startsWith('#')) {
    throw new TypeError(
      `rxlock: ${where}: option "owner" must be 1-256 characters of letters, digits, "_", ".", "@", "/" or "-" ` +
        `(":" would forge another client's field, "#" is reserved for generated owners), got ${describeValue(owner)}`,
    );
  }
}

/** Checks an AbortSignal option. */
export function assertSignal(signal: unknown, where: string): asserts signal is AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`rxlock: ${where}: option "signal" must be an AbortSignal, got ${describeValue(signal)}`);
  }
}
