import type { RedisLike } from './RedisLike.js';

/** How scripts announce wake-ups: classic pub/sub, or sharded pub/sub (Redis 7+ Cluster). */
export type PublishCommand = 'publish' | 'spublish';

/** What the user asked for: `'auto'` detects, `true` insists on sharded pub/sub, `false` never uses it. */
export type ShardedPubSubSetting = 'auto' | boolean;

/**
 * Whether ioredis can route SSUBSCRIBE for this client: only a Cluster created with `shardedSubscribers: true`
 * keeps one subscriber per shard and follows slot moves; anything else would send SSUBSCRIBE to a random node.
 */
export function hasShardedSubscribers(redis: RedisLike): boolean {
  if (!redis.isCluster) return false;
  const options = redis.options as { shardedSubscribers?: unknown } | undefined;
  return options?.shardedSubscribers === true;
}

/** The major version the server reports, or undefined when INFO does not say. */
export async function serverMajorVersion(redis: RedisLike): Promise<number | undefined> {
  const info = await redis.info('server');
  const major = /^redis_version:(\d+)\./m.exec(info)?.[1];
  return major === undefined ? undefined : Number(major);
}

/** Sharded pub/sub needs the server side (Redis 7) and the client side (a Cluster with sharded subscribers). */
export const SHARDED_PUBSUB_REQUIREMENT = 'sharded pub/sub needs an ioredis Cluster created with `shardedSubscribers: true` and Redis 7 or newer';
