/**
 * A Redis client rxlock can work with: an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6, or iovalkey)
 * or a node-redis one (`createClient`, `createCluster` or `createSentinel` of `redis` 5). rxlock tells them
 * apart by shape and imports neither library.
 */
export type RedisLike = IoRedisLike | NodeRedisLike;

/** A node-redis 5 client, cluster or sentinel (`redis` on npm), as far as rxlock uses it. */
export type NodeRedisLike = NodeRedisClientLike | NodeRedisClusterLike | NodeRedisSentinelLike;

/**
 * The part of an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6, or iovalkey) that rxlock uses.
 * Structural, so a wrapper or a fake with these methods works too.
 */
export interface IoRedisLike {
  /** True for a `Cluster`. */
  readonly isCluster: boolean;
  /** The connection's state (`ready`, `reconnecting`, `end`, ...); `end` tells a closed client apart. */
  readonly status: string;
  /** The client's options; rxlock reads only a Cluster's `shardedSubscribers`. */
  readonly options?: object | undefined;
  /** EVALSHA: runs a script the server has cached, by its SHA1. */
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** EVAL: runs a script by its body (after a `NOSCRIPT` reply). */
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** INFO: the server's version, run id, uptime and eviction policy. */
  info(section: string): Promise<string>;
  /** A pipeline, to send a script and `WAIT` back to back on one connection. */
  pipeline(): PipelineLike;
  /** A new connection with the same settings, used for pub/sub. */
  duplicate(): SubscriberLike;
  /** A Cluster's: fetch the slot map again (after a MOVED that ioredis could not follow inside a pipeline). */
  refreshSlotsCache?(callback?: (error?: Error | null) => void): void;
  /** Adds an event listener: rxlock listens for the connection's `close` and `end`, and a cluster's topology changes. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Removes a listener added with `on`. */
  off(event: string, listener: (...args: string[]) => void): unknown;
}

/** The subscriber connection: classic or sharded pub/sub. */
export interface SubscriberLike {
  /** The connection's state (`connect`, `ready`, `reconnecting`, `end`, ...). */
  readonly status: string;
  /** True for a Cluster, whose own subscriber connections are not held back during a handshake. */
  readonly isCluster?: boolean;
  /** SUBSCRIBE: classic pub/sub. */
  subscribe(...channels: string[]): Promise<unknown>;
  /** UNSUBSCRIBE. */
  unsubscribe(...channels: string[]): Promise<unknown>;
  /** SSUBSCRIBE: sharded pub/sub (Redis 7 Cluster). */
  ssubscribe(...channels: string[]): Promise<unknown>;
  /** SUNSUBSCRIBE. */
  sunsubscribe(...channels: string[]): Promise<unknown>;
  /** A Cluster's: fetch the slot map again (the sharded subscribers follow it). */
  refreshSlotsCache?(callback?: (error?: Error | null) => void): void;
  /** Adds an event listener: rxlock listens for messages and for the connection's state changes. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Removes a listener added with `on`. */
  off(event: string, listener: (...args: string[]) => void): unknown;
  /** Closes the connection at once; the lock client's `close()` calls it. */
  disconnect(): void;
}

/** A pipeline: used to send a script and `WAIT` back to back on one connection. */
export interface PipelineLike {
  /** Queues an EVALSHA. */
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: (string | number)[]): PipelineLike;
  /** Queues an EVAL. */
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): PipelineLike;
  /** Queues a WAIT: how many replicas acknowledged the writes before it, within `timeoutMs`. */
  wait(numReplicas: number, timeoutMs: number): PipelineLike;
  /** Any command by name; rxlock sends `WAITAOF` with it. */
  call?(command: string, ...args: (string | number)[]): PipelineLike;
  /** Sends the queued commands; resolves with each one's error or result, in order. */
  exec(): Promise<[error: Error | null, result: unknown][] | null>;
}

/** Command options of node-redis that rxlock sets on its own commands: replies read raw, whatever the client maps them to. */
export interface NodeRedisCommandOptions {
  /**
   * How node-redis maps replies to JavaScript types; rxlock passes an empty mapping, so that it reads replies raw.
   * @default the client's own mapping (node-redis's)
   */
  readonly typeMapping?: object;
}

/**
 * A pub/sub listener of node-redis: the message, then its channel (strings, as rxlock subscribes). Its
 * parameters are left open so that node-redis's own listener types, which also take Buffers, fit.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- node-redis's listener type is generic over Buffer or string messages
export type NodeRedisListener = (message: any, channel: any) => unknown;

/** What node-redis's clients, clusters and sentinels share: their state, pub/sub and events. */
interface NodeRedisCommon {
  /** Connected or connecting (node-redis queues commands while it connects). */
  readonly isOpen: boolean;
  /** SUBSCRIBE with a listener. */
  subscribe(channels: string, listener: NodeRedisListener): Promise<unknown>;
  /** UNSUBSCRIBE the listener. */
  unsubscribe(channels: string, listener: NodeRedisListener): Promise<unknown>;
  /** Adds an event listener: rxlock listens for reconnections, the connection's end and topology changes. */
  on(event: string, listener: (...args: string[]) => void): unknown;
  /** Removes a listener added with `on`. */
  off(event: string, listener: (...args: string[]) => void): unknown;
}

/**
 * A node-redis client (`createClient(...)`, redis 5), connected (`await client.connect()`) before it is used.
 * rxlock opens its pub/sub connection with `duplicate()` and closes it in `close()`.
 */
export interface NodeRedisClientLike extends NodeRedisCommon {
  /** Connected and ready for commands. */
  readonly isReady: boolean;
  /** Sends one command (rxlock's EVALSHA, EVAL, WAIT, WAITAOF, INFO). */
  sendCommand(args: string[], options?: NodeRedisCommandOptions): Promise<unknown>;
  /** A new client with the same settings: rxlock's pub/sub connection. */
  duplicate(): object;
}

/** A node-redis cluster (`createCluster(...)`): commands routed by their first key, sharded pub/sub per shard. */
export interface NodeRedisClusterLike extends NodeRedisCommon {
  /** Sends one command to the node that owns `firstKey`'s slot. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[], options?: NodeRedisCommandOptions): Promise<unknown>;
  /** SSUBSCRIBE with a listener, on the shard that owns the channel. */
  sSubscribe(channels: string, listener: NodeRedisListener): Promise<unknown>;
  /** SUNSUBSCRIBE the listener. */
  sUnsubscribe(channels: string, listener: NodeRedisListener): Promise<unknown>;
  /** A new cluster client with the same settings: rxlock's pub/sub connection. */
  duplicate(): object;
}

/**
 * A node-redis sentinel (`createSentinel(...)`): commands go to the current master; pub/sub goes through the
 * sentinel's own pub/sub connection (node-redis has no `duplicate()` for a sentinel).
 */
export interface NodeRedisSentinelLike extends NodeRedisCommon {
  /** Sends one command to the current master. */
  sendCommand(isReadonly: boolean | undefined, args: string[], options?: NodeRedisCommandOptions): Promise<unknown>;
  /** The current master's address; rxlock only checks that the method exists, to recognise a sentinel. */
  getMasterNode(): unknown;
}
