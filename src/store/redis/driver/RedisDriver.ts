import type { SubscriberLike } from '../RedisLike.js';

/** A command that waits for a script's writes to be acknowledged, sent right behind the script on its connection. */
export type WaitCommand =
  | { readonly command: 'wait'; readonly replicas: number; readonly timeoutMs: number }
  /** `numlocal` is 1 when the server itself must have fsynced its AOF too (Redisson's `checkLockSyncedSlaves` with AOF on). */
  | { readonly command: 'waitaof'; readonly local: 0 | 1; readonly replicas: number; readonly timeoutMs: number };

/** One command's outcome in a pipeline: its error, or its raw reply. */
export type PipelineResult = readonly [error: Error | null, reply: unknown];

/** What the store hears from the user's client. Each hook may be called any number of times. */
export interface DriverHooks {
  /** The command connection (or one node's) dropped: a command sent before and answered after may have run twice. */
  connectionLost(): void;
  /** A cluster client fetched its slot map again: shard channels may have to follow their slots. */
  topologyChanged(): void;
  /** A cluster node was lost (failed over or removed): the subscriber resyncs too. */
  nodeLost(): void;
  /** The client is closed for good (closed by its owner, or it gave up reconnecting): close what rxlock opened. */
  ended(): void;
}

/**
 * What differs between the Redis client libraries rxlock works with: how a script is sent, how two commands go
 * back to back on one connection, what the client's events mean, and how rxlock opens its own pub/sub
 * connection. Everything costly (script cache, NOSCRIPT and MOVED handling, WAIT, epochs, the shared
 * subscriber) is written once over this interface (`RedisStore`, `Subscriber`); a driver only translates.
 * Replies are raw: integers, strings, arrays and null, whatever reply mapping the user's client has.
 */
export interface RedisDriver {
  /** The library and kind of client, for messages: `an ioredis Cluster`, `a node-redis client`. */
  readonly description: string;
  readonly isCluster: boolean;
  /** Whether this client can route SSUBSCRIBE to the node of each shard channel and follow slot moves. */
  readonly shardedSubscribers: boolean;
  /** Why no command can be sent now and none ever will (closed, gave up reconnecting), or why not yet (never connected); undefined when usable. */
  unusable(): string | undefined;
  evalsha(sha1: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  eval(lua: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /**
   * Sends a script (its body or its SHA1) and then `wait` back to back on the one connection that serves
   * `keys[0]`, and reports each outcome. A redirection (MOVED) is reported as the script's error, not followed:
   * the wait would then have gone to a node that ran nothing.
   */
  scriptThenWait(
    script: { readonly lua: string; readonly sha1: string },
    useBody: boolean,
    keys: readonly string[],
    args: readonly (string | number)[],
    wait: WaitCommand,
  ): Promise<readonly [PipelineResult, PipelineResult]>;
  /** `INFO <section>` of the server (of any node on a cluster). */
  info(section: string): Promise<string>;
  /** A cluster client fetches its slot map again; resolves at once on a single server. */
  refreshSlots(): Promise<void>;
  /** Which node serves `slot` in the client's slot map (an address or id), or undefined when it has none. */
  slotOwner(slot: number): string | undefined;
  /** Whether `error` is the server's error reply (as opposed to a connection failure). */
  isReplyError(error: unknown): boolean;
  /**
   * Whether `error` failed a command because its connection dropped while it was in flight, on a client that
   * reconnects and will not send it again itself (node-redis; ioredis re-sends such commands). The store then
   * sends it once more, as ioredis would: every rxlock script is safe to run twice, and the epoch marks its
   * reply as outcome-unknown.
   */
  droppedInFlight(error: unknown): boolean;
  /** Starts reporting the client's events to `hooks`; the function returned stops it. */
  watch(hooks: DriverHooks): () => void;
  /** Opens the pub/sub connection rxlock owns (a duplicate of the client, where it has one), closed by `disconnect()`. */
  openSubscriber(): SubscriberLike;
}
