/**
 * The part of an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6) that rxlock uses. Structural, so
 * a wrapper or a fake with these methods works too.
 */
export interface RedisLike {
  readonly isCluster: boolean;
  readonly status: string;
  /** The client's options; rxlock reads only a Cluster's `shardedSubscribers`. */
  readonly options?: object | undefined;
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  info(section: string): Promise<string>;
  pipeline(): PipelineLike;
  /** A new connection with the same settings, used for pub/sub. */
  duplicate(): SubscriberLike;
  /** A Cluster's: fetch the slot map again (after a MOVED that ioredis could not follow inside a pipeline). */
  refreshSlotsCache?(callback?: (error?: Error | null) => void): void;
  on(event: string, listener: (...args: string[]) => void): unknown;
  off(event: string, listener: (...args: string[]) => void): unknown;
}

/** The subscriber connection: classic or sharded pub/sub. */
export interface SubscriberLike {
  readonly status: string;
  /** True for a Cluster, whose own subscriber connections are not held back during a handshake. */
  readonly isCluster?: boolean;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  ssubscribe(...channels: string[]): Promise<unknown>;
  sunsubscribe(...channels: string[]): Promise<unknown>;
  /** A Cluster's: fetch the slot map again (the sharded subscribers follow it). */
  refreshSlotsCache?(callback?: (error?: Error | null) => void): void;
  on(event: string, listener: (...args: string[]) => void): unknown;
  off(event: string, listener: (...args: string[]) => void): unknown;
  disconnect(): void;
}

/** A pipeline: used to send a script and `WAIT` back to back on one connection. */
export interface PipelineLike {
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: (string | number)[]): PipelineLike;
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): PipelineLike;
  wait(numReplicas: number, timeoutMs: number): PipelineLike;
  exec(): Promise<[error: Error | null, result: unknown][] | null>;
}
