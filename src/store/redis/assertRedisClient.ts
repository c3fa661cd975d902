import { assertClientKind } from './driver/driverFor.js';
import type { RedisLike } from './RedisLike.js';

/**
 * Checks that `value` is a client rxlock can work with: an ioredis `Redis` or `Cluster` (or iovalkey's), or a
 * node-redis client, cluster or sentinel; throws a TypeError naming `what` (`option "redis"`, `instances[1]`)
 * otherwise. An ioredis client with its own `keyPrefix` is refused: ioredis prefixes the keys of a script but
 * not the channels rxlock subscribes to or names in arguments, so unlock messages would never reach the waiters.
 */
export function assertRedisClient(value: unknown, where: string, what: string): asserts value is RedisLike {
  assertClientKind(value, where, what);
}
