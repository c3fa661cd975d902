// Compiled by `npm run typecheck` only: proves that node-redis's clients satisfy RedisLike's node-redis members.
import type { RedisClientType, RedisClusterType, RedisSentinelType } from 'redis';
import type { NodeRedisClientLike, NodeRedisClusterLike, NodeRedisSentinelLike, RedisLike } from '../../src/index.js';

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
