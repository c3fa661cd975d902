// Compiled by `npm run typecheck` only: proves that node-redis 6's clients (the `redis6` alias) satisfy RedisLike's node-redis members.
import { createClient, createCluster, createSentinel, type RedisClientType, type RedisClusterType, type RedisSentinelType } from 'redis6';
import { createLockClient, type NodeRedisClientLike, type NodeRedisClusterLike, type NodeRedisSentinelLike, type RedisLike } from '../../src/index.js';

type Accepts<T extends RedisLike> = T;
type Client<T extends NodeRedisClientLike> = T;
type ClusterOf<T extends NodeRedisClusterLike> = T;
type SentinelOf<T extends NodeRedisSentinelLike> = T;

export type Supported = [
  Client<RedisClientType>,
  ClusterOf<RedisClusterType>,
  SentinelOf<RedisSentinelType>,
  Accepts<RedisClientType>,
  Accepts<RedisClusterType>,
  Accepts<RedisSentinelType>,
];

// What users write: the clients as `createClient`, `createCluster` and `createSentinel` type them (RESP3 by default).
export function accepted(): void {
  createLockClient({ redis: createClient() });
  createLockClient({ redis: createCluster({ rootNodes: [] }) });
  createLockClient({ redis: createSentinel({ name: 'mymaster', sentinelRootNodes: [] }) });
}
