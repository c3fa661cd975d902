// Compiled by `npm run typecheck` only: proves that the clients of node-redis 5 (`redis`) and 6 (the `redis6`
// alias) satisfy RedisLike's node-redis members.
import type { RedisClientType, RedisClusterType, RedisSentinelType } from 'redis';
import { createClient, createCluster, createSentinel, type RedisClientType as RedisClientType6 } from 'redis6';
import type { RedisClusterType as RedisClusterType6, RedisSentinelType as RedisSentinelType6 } from 'redis6';
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
  Client<RedisClientType6>,
  ClusterOf<RedisClusterType6>,
  SentinelOf<RedisSentinelType6>,
  Accepts<RedisClientType6>,
  Accepts<RedisClusterType6>,
  Accepts<RedisSentinelType6>,
];

// What node-redis 6 users write: the clients as its `createClient`, `createCluster` and `createSentinel` type them (RESP3 by default).
export function accepted(): void {
  createLockClient({ redis: createClient() });
  createLockClient({ redis: createCluster({ rootNodes: [] }) });
  createLockClient({ redis: createSentinel({ name: 'mymaster', sentinelRootNodes: [] }) });
}
