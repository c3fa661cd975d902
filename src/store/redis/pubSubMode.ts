import type { RedisDriver } from './driver/RedisDriver.js';

/** How scripts announce wake-ups: classic pub/sub, or sharded pub/sub (Redis 7+ Cluster). */
export type PublishCommand = 'publish' | 'spublish';

/**
 * `redisStore`'s `shardedPubSub`: `'auto'` uses sharded pub/sub where the client and server support it, `true`
 * insists on it, `false` never uses it.
 */
export type ShardedPubSubSetting = 'auto' | boolean;

/** The major version the server reports, or undefined when INFO does not say. */
export async function serverMajorVersion(driver: RedisDriver): Promise<number | undefined> {
  const info = await driver.info('server');
  const major = /^redis_version:(\d+)\./m.exec(info)?.[1];
  return major === undefined ? undefined : Number(major);
}

/** Sharded pub/sub needs the server side (Redis 7) and the client side (a cluster client that routes SSUBSCRIBE per shard). */
export const SHARDED_PUBSUB_REQUIREMENT =
  'sharded pub/sub needs a cluster client that routes SSUBSCRIBE per shard (an ioredis Cluster created with `shardedSubscribers: true`, or a node-redis cluster) and Redis 7 or newer';
