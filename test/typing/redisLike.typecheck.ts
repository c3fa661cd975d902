// Compiled by `npm run typecheck` only: proves that every supported ioredis client satisfies RedisLike.
import type { Cluster, Redis } from 'ioredis';
import type { Cluster as Cluster6, Redis as Redis6 } from 'ioredis6';
import type { RedisLike } from '../../src/index.js';

type Accepts<T extends RedisLike> = T;

export type Supported = [Accepts<Redis>, Accepts<Cluster>, Accepts<Redis6>, Accepts<Cluster6>];
