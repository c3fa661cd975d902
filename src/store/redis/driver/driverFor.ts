import { describeValue } from '../../../util/describeValue.js';
import type { IoRedisLike, NodeRedisClientLike, NodeRedisClusterLike, NodeRedisSentinelLike, RedisLike } from '../RedisLike.js';
import { IoredisDriver } from './ioredisDriver.js';
import { NodeRedisClientDriver, NodeRedisClusterDriver, NodeRedisSentinelDriver } from './nodeRedisDriver.js';
import type { RedisDriver } from './RedisDriver.js';

/** What every "not a Redis client" error lists. */
export const ACCEPTED_CLIENTS =
  'an ioredis client (Redis or Cluster, ioredis 5 or 6, or iovalkey) or a node-redis client (createClient, createCluster or createSentinel of redis 5)';

type Kind = 'ioredis' | 'node-redis client' | 'node-redis cluster' | 'node-redis sentinel';

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** Which kind of client `value` is, by shape only (rxlock imports neither library), or why it is none. */
function kindOf(value: unknown): Kind | { readonly refused: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (isFunction(v.evalsha) && isFunction(v.duplicate) && isFunction(v.pipeline) && typeof v.isCluster === 'boolean') return 'ioredis';
  if (!isFunction(v.sendCommand)) return undefined;
  // node-redis 4's legacy mode: callbacks instead of promises.
  if ((v.options as { legacyMode?: unknown } | undefined)?.legacyMode === true) {
    return { refused: 'a node-redis client in legacy mode (legacyMode: true); pass a client without it' };
  }
  if (typeof v.isOpen !== 'boolean') {
    // node-redis 5's client.legacy(): callbacks instead of promises.
    if (isFunction(v.multi)) return { refused: 'a node-redis legacy client (client.legacy()); pass the client itself' };
    return undefined;
  }
  if (isFunction(v.sSubscribe) && isFunction(v.nodeClient) && 'masters' in v) return 'node-redis cluster';
  if (isFunction(v.getMasterNode) && isFunction(v.subscribe)) return 'node-redis sentinel';
  if (isFunction(v.duplicate) && isFunction(v.subscribe) && typeof v.isReady === 'boolean') return 'node-redis client';
  return undefined;
}

/**
 * The driver for a user's Redis client, told apart by shape in this one place. Anything else is a TypeError
 * naming `where` and `what` (`createLockClient: option "redis"`), what was given and what is accepted.
 */
export function driverFor(value: unknown, where: string, what: string): RedisDriver {
  const kind = assertClientKind(value, where, what);
  switch (kind) {
    case 'ioredis':
      return new IoredisDriver(value as IoRedisLike);
    case 'node-redis client':
      return new NodeRedisClientDriver(value as NodeRedisClientLike);
    case 'node-redis cluster':
      return new NodeRedisClusterDriver(value as NodeRedisClusterLike);
    case 'node-redis sentinel':
      return new NodeRedisSentinelDriver(value as NodeRedisSentinelLike);
  }
}

/** Checks that `value` is a client rxlock can work with (see `driverFor`) without building a driver. */
export function assertClientKind(value: unknown, where: string, what: string): Kind {
  const kind = kindOf(value);
  if (kind === undefined) throw new TypeError(`rxlock: ${where}: ${what} must be ${ACCEPTED_CLIENTS}, got ${describeClient(value)}`);
  if (typeof kind === 'object') throw new TypeError(`rxlock: ${where}: ${what} is ${kind.refused}`);
  if (kind === 'ioredis') {
    const prefix = keyPrefixOf(value as object);
    if (prefix !== undefined) {
      throw new TypeError(
        `rxlock: ${where}: ${what} has the ioredis option keyPrefix ${JSON.stringify(prefix)}, which rxlock cannot follow ` +
          '(ioredis prefixes keys, not pub/sub channels, so waiters would not hear unlocks); ' +
          `pass a client without keyPrefix and rxlock's own keyPrefix option instead`,
      );
    }
  }
  return kind;
}

/** Whether `value` is one of the accepted clients (for types that take a client or something else). */
export function isRedisClient(value: unknown): value is RedisLike {
  const kind = kindOf(value);
  return typeof kind === 'string';
}

/** A bad value, with its class name when it has one (`an object (Promise)`), so that a forgotten `await` shows. */
function describeClient(value: unknown): string {
  const described = describeValue(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return described;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' && name !== 'Object' ? `${described} (${name})` : described;
}

/** A `Redis`'s `keyPrefix`, or a `Cluster`'s own or its `redisOptions`'. */
function keyPrefixOf(redis: object): string | undefined {
  const options = (redis as { options?: { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } } }).options;
  const prefix = options?.keyPrefix ?? options?.redisOptions?.keyPrefix;
  return typeof prefix === 'string' && prefix !== '' ? prefix : undefined;
}
