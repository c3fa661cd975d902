import type { Observable, SchedulerLike } from 'rxjs';
import type { Script } from './Script.js';

/** What a channel listener sees: `ready` each time the (re)subscription is confirmed, then messages. */
export type ChannelEvent =
  | {
      /** The subscription was confirmed (again, after a reconnect): a message sent before may have been missed. */
      readonly type: 'ready';
    }
  | {
      /** A message arrived on the channel. */
      readonly type: 'message';
      /** Its payload, as published. */
      readonly message: string;
    };

/** Options of one script run (`StoreConnection.run` and `call`). */
export interface RunOptions {
  /**
   * Wait until this many replicas acknowledged the script's writes (`WAIT`), failing with
   * `StoreError('no-replicas')` when none did within `replicaTimeoutMs`.
   * @default 0 (no wait)
   */
  readonly replicas?: number | undefined;
  /**
   * How long that `WAIT` may take.
   * @default the store's own setting
   */
  readonly replicaTimeoutMs?: number | undefined;
}

/** Receives the one reply of a command, or its error. */
export interface ReplyObserver<R> {
  /** The command's parsed reply. */
  next(reply: R): void;
  /** The command failed (a `StoreError`, or the client's own error). */
  error(error: unknown): void;
}

/** One script invocation, described rather than sent: the engine sends it (the cheapest way a store offers). */
export interface ScriptCall<R> {
  /** The script to run. */
  readonly script: Script<R>;
  /** Its `KEYS`, each in the same cluster slot as the others. */
  readonly keys: readonly string[];
  /** Its `ARGV`. */
  readonly args: readonly (string | number)[];
}

/**
 * One client's connection to a store: a command channel for scripts and a subscriber for wake-ups.
 * Every call is asynchronous: replies and messages never arrive inside the caller's stack.
 */
export interface StoreConnection {
  /** Runs one atomic script: a cold Observable that sends it on subscription and emits its parsed reply. */
  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], options?: RunOptions): Observable<R>;
  /**
   * `run` without an Observable, for the engine's hot path: sends the script now and reports its parsed reply
   * (or error) to `observer`, asynchronously. Optional: the engine falls back to `run`.
   */
  call?<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], observer: ReplyObserver<R>, options?: RunOptions): void;
  /** Subscribes to a channel while subscribed. The engine listens to each channel at most once at a time. */
  listen(channel: string): Observable<ChannelEvent>;
  /** How scripts announce wake-ups: `spublish` on a cluster with sharded pub/sub, `publish` otherwise. */
  readonly publishCommand: 'publish' | 'spublish';
  /**
   * Whether a script's PUBSUB NUMSUB (SHARDNUMSUB with `spublish`) counts this connection's subscriptions:
   * on one server and with sharded pub/sub, but not on a cluster with classic pub/sub, where each node counts
   * only the subscribers connected to it. Direct hand-offs need it (they go only to a client that listens).
   * @default false
   */
  readonly subscribersVisible?: boolean;
  /** Counts connection losses; a change between a command's send and its reply means it may have run twice. */
  epoch(): number;
  /** Groups keys whose scripts may run together (one group per cluster slot; one group on a single server). */
  slotOf(key: string): number;
  /** The server's run id and how long it has been up (`INFO server`), for the client's restart guard: one reply. @default not known */
  serverInfo?(): Observable<ServerInfo>;
  /** The server's eviction policy (`maxmemory-policy`), when the store has one. */
  evictionPolicy(): Promise<string | undefined>;
  /** Closes what this connection created (never the user's own client). */
  close(): Promise<void>;
}

/** What a store says of its server: a run id (new at every start) and how long it has been up. */
export interface ServerInfo {
  /** The server's run id (`run_id`): a new one at every start. */
  readonly runId: string;
  /** How long the server has been up, in ms, at least: never more than it really has (a restart guard relies on it). */
  readonly uptimeMs: number;
}

/** A place locks live in: Redis (`redisStore`) or memory (`createMemoryStore` from `rxlock/testing`). */
export interface LockStore {
  /** Opens one client's connection. `scheduler` times command timeouts and memory replies. */
  connect(scheduler: SchedulerLike): StoreConnection;
}
