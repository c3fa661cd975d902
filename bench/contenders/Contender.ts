import type { Redis } from 'ioredis';
import type { RedisClientType } from 'redis';

/** One worker's hold on one key, in the way a user of the library would write it. */
export interface LockWorker {
  /** Waits until the key is held. False when the library gave up by its own timeout (the caller asks again). */
  acquire(): Promise<boolean>;
  /** Releases the hold and resolves once the library says it is released. */
  release(): Promise<void>;
  /** Ends what the library created (not the connections from `connect`, which the harness closes). */
  close(): Promise<void>;
}

/** What a worker gets from the harness. */
export interface WorkerContext {
  /** The key this worker locks. */
  readonly key: string;
  /** A new connection for this worker. Its commands (and those of connections it duplicates) are counted. */
  readonly connect: () => Redis;
  /** A new node-redis connection for this worker, connected, counted the same way; where the harness offers one. */
  readonly connectNodeRedis?: () => Promise<RedisClientType>;
}

/** A lock implementation under test. */
export interface Contender {
  /** Short name for flags and JSON. */
  readonly id: string;
  /** Column title. */
  readonly label: string;
  /** The exact settings, as the README lists them. */
  readonly settings: string;
  /** False for the floor, which excludes nothing and only runs uncontended. */
  readonly excludes: boolean;
  /** Undefined when it can run; otherwise why not (printed instead of figures). */
  unavailable(): Promise<string | undefined>;
  open(context: WorkerContext): Promise<LockWorker>;
}
