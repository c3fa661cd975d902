import { describeValue } from '../../util/describeValue.js';
import type { RedisLike } from './RedisLike.js';

/**
 * Checks that `value` is an ioredis `Redis` or `Cluster` rxlock can work with; throws a TypeError naming `what`
 * (`option "redis"`, `instances[1]`) otherwise. A client with its own `keyPrefix` is refused: ioredis prefixes
 * the keys of a script but not the channels rxlock subscribes to or names in arguments, so unlock messages
 * would never reach the waiters.
 */
export function assertRedisClient(value: unknown, where: string, what: string): asserts value is RedisLike {
  const looksLikeRedis =
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { evalsha?: unknown }).evalsha === 'function' &&
    typeof (value as { duplicate?: unknown }).duplicate === 'function';
  if (!looksLikeRedis) throw new TypeError(`rxlock: ${where}: ${what} must be an ioredis Redis or Cluster, got ${describeValue(value)}`);
  const prefix = keyPrefixOf(value);
  if (prefix !== undefined) {
    throw new TypeError(
      `rxlock: ${where}: ${what} has the ioredis option keyPrefix ${JSON.stringify(prefix)}, which rxlock cannot follow ` +
        '(ioredis prefixes keys, not pub/sub channels, so waiters would not hear unlocks); ' +
        `pass a client without keyPrefix and rxlock's own keyPrefix option instead`,
    );
  }
}

/** A `Redis`'s `keyPrefix`, or a `Cluster`'s own or its `redisOptions`'. */
function keyPrefixOf(redis: object): string | undefined {
  const options = (redis as { options?: { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } } }).options;
  const prefix = options?.keyPrefix ?? options?.redisOptions?.keyPrefix;
  return typeof prefix === 'string' && prefix !== '' ? prefix : undefined;
}
