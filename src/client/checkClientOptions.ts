import { assertRedisClient } from '../store/redis/assertRedisClient.js';
import { describeValue } from '../util/describeValue.js';
import { assertDuration, assertOptions } from '../util/validate.js';
import { CLIENT_ID_PATTERN } from '../util/ids.js';
import { CLIENT_OPTION_KEYS, type LockClientOptions } from './LockClientOptions.js';

const WHERE = 'createLockClient';

/** Longest key prefix: it is repeated in every key and argument of every command. */
const MAX_KEY_PREFIX = 256;

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Checks the client options; throws a TypeError or RangeError naming the option and the value. */
export function checkClientOptions(options: LockClientOptions): void {
  assertOptions(options, CLIENT_OPTION_KEYS, WHERE);
  if ((options as LockClientOptions | undefined) === undefined) throw new TypeError(`rxlock: ${WHERE}: options are required ({ redis } or { store })`);
  const { redis, store } = options;
  if ((redis === undefined) === (store === undefined)) {
    throw new TypeError(`rxlock: ${WHERE}: pass exactly one of "redis" (an ioredis or node-redis client) and "store"`);
  }
  if (redis !== undefined) assertRedisClient(redis, WHERE, 'option "redis"');
  if (store !== undefined && (typeof store !== 'object' || typeof (store as { connect?: unknown }).connect !== 'function')) {
    throw new TypeError(`rxlock: ${WHERE}: option "store" must be a LockStore, got ${describeValue(store)}`);
  }
  const durations = ['watchdogTimeoutMs', 'commandTimeoutMs', 'fairLockWaiterTimeoutMs', 'replicaTimeoutMs'] as const;
  for (const key of durations) if (options[key] !== undefined) assertDuration(options[key], key, WHERE, { min: key === 'watchdogTimeoutMs' ? 30 : 1 });
  for (const key of ['handoffMs', 'driftMs', 'restartGuardMs'] as const) if (options[key] !== undefined) assertDuration(options[key], key, WHERE, { min: 0 });
  const { driftFactor, replicas, keyPrefix, scheduler } = options;
  if (driftFactor !== undefined && (typeof driftFactor !== 'number' || !(driftFactor >= 0 && driftFactor < 0.5))) {
    throw new RangeError(`rxlock: ${WHERE}: option "driftFactor" must be a number in [0, 0.5), got ${describeValue(driftFactor)}`);
  }
  if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)) {
    throw new RangeError(`rxlock: ${WHERE}: option "replicas" must be a non-negative integer, got ${describeValue(replicas)}`);
  }
  const { clientId } = options;
  if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId))) {
    const error = typeof clientId === 'string' ? RangeError : TypeError;
    throw new error(`rxlock: ${WHERE}: option "clientId" must be a string of 1-64 letters, digits, "_", "." or "-" (no ":"), got ${describeValue(clientId)}`);
  }
  if (keyPrefix !== undefined && typeof keyPrefix !== 'string') {
    throw new TypeError(`rxlock: ${WHERE}: option "keyPrefix" must be a string, got ${describeValue(keyPrefix)}`);
  }
  if (keyPrefix !== undefined && keyPrefix.length > MAX_KEY_PREFIX) {
    throw new RangeError(`rxlock: ${WHERE}: option "keyPrefix" must be at most ${String(MAX_KEY_PREFIX)} characters, got ${String(keyPrefix.length)}`);
  }
  // A lone surrogate reaches Redis as U+FFFD's bytes: two different prefixes would share locks.
  if (keyPrefix !== undefined && (CONTROL.test(keyPrefix) || !keyPrefix.isWellFormed())) {
    throw new TypeError(`rxlock: ${WHERE}: option "keyPrefix" may not contain control characters or lone surrogates, got ${describeValue(keyPrefix)}`);
  }
  if (keyPrefix !== undefined && /[{}]/.test(keyPrefix)) {
    throw new TypeError(
      `rxlock: ${WHERE}: option "keyPrefix" may not contain "{" or "}": it would change the cluster slot of every key, got ${describeValue(keyPrefix)}`,
    );
  }
  if (scheduler !== undefined && (typeof scheduler !== 'object' || typeof scheduler.now !== 'function' || typeof scheduler.schedule !== 'function')) {
    throw new TypeError(`rxlock: ${WHERE}: option "scheduler" must be an RxJS SchedulerLike, got ${describeValue(scheduler)}`);
  }
}
