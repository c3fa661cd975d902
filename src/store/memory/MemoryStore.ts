import { Observable, type SchedulerLike } from 'rxjs';
import { monotonicScheduler } from '../../util/monotonicScheduler.js';
import type { Reply, Script } from '../Script.js';
import { ScriptError } from '../Script.js';
import type { ChannelEvent, LockStore, ReplyObserver, ServerInfo, StoreConnection } from '../Store.js';
import { classifyReplyError } from '../classifyReplyError.js';
import { StoreError } from '../StoreError.js';
import { checkMemoryStoreOptions } from './checkMemoryStoreOptions.js';
import { MemoryDb } from './MemoryDb.js';

/** Options of `createMemoryStore`. */
export interface MemoryStoreOptions {
  /**
   * The clock keys expire on and the scheduler replies and messages are delivered through. Pass the
   * TestScheduler in marble tests (the same one as the client's).
   * @default monotonicScheduler
   */
  scheduler?: SchedulerLike | undefined;
  /**
   * Time from sending a command to its reply, from a publish to its delivery, from SUBSCRIBE to its
   * confirmation. 0 still delivers asynchronously.
   * @default 0
   */
  latencyMs?: number | undefined;
}

/**
 * What the memory store does with commands:
 * - `none`: runs them.
 * - `blackhole`: drops them unanswered, as a partitioned network does (nothing runs, no reply ever comes).
 * - `unavailable`: rejects them at once with a connection error; nothing runs.
 */
export type MemoryFault = 'none' | 'blackhole' | 'unavailable';

type Listener = (event: ChannelEvent) => void;

/**
 * An in-memory store with Redis semantics on the scheduler's clock: the same scripts (their TypeScript
 * bodies), silent expiry, pub/sub delivered at most once to the connections subscribed at publish time.
 * Create one per test and connect several clients to it to test contention in virtual time.
 */
export class MemoryStore implements LockStore {
  /** The store's clock and delivery scheduler (the `scheduler` option). */
  readonly scheduler: SchedulerLike;
  /** The delay of every reply and message, in ms (the `latencyMs` option). */
  readonly latencyMs: number;
  /** The keyspace, for assertions: `store.db.keys()`, `store.db.hget(...)`. */
  readonly db: MemoryDb;
  readonly #connections = new Set<MemoryConnection>();
  #fault: MemoryFault = 'none';
  #commands = 0;
  /** Restarts so far: each one drops every connection, as a real restart does (see `epoch`). */
  #restarts = 0;
  #startedAt: number;

  /** An empty store; `createMemoryStore(options)` does the same. */
  constructor(options: MemoryStoreOptions = {}) {
    checkMemoryStoreOptions(options);
    this.scheduler = options.scheduler ?? monotonicScheduler;
    this.latencyMs = options.latencyMs ?? 0;
    this.db = new MemoryDb(
      () => this.scheduler.now(),
      (channel, message) => this.#publish(channel, message),
      (channel) => this.#subscribers(channel),
    );
    this.#startedAt = this.scheduler.now();
  }

  connect(): StoreConnection {
    const connection = new MemoryConnection(this);
    this.#connections.add(connection);
    return connection;
  }

  /** Switches fault injection for every connection. */
  setFault(fault: MemoryFault): void {
    this.#fault = fault;
  }

  /** The fault injected now (`setFault`). */
  get fault(): MemoryFault {
    return this.#fault;
  }

  /** How many commands (scripts, subscribes) all connections sent so far. */
  get commandCount(): number {
    return this.#commands;
  }

  /** Channel subscriptions still open across all connections; 0 after a clean shutdown. */
  subscriptionCount(): number {
    let total = 0;
    for (const connection of this.#connections) total += connection.channelCount();
    return total;
  }

  /** Simulates a restart without persistence: every key is gone, nothing is published, and connections count a loss. */
  restart(): void {
    this.db.flushAll();
    this.#restarts++;
    this.#startedAt = this.scheduler.now();
  }

  /** @internal How many restarts connections have seen (their epoch). */
  get restarts(): number {
    return this.#restarts;
  }

  /** @internal What `INFO server` would say: a run id per start, and the time since. */
  serverInfo(): { runId: string; uptimeMs: number } {
    return { runId: `memory-${String(this.#restarts)}`, uptimeMs: this.scheduler.now() - this.#startedAt };
  }

  /** @internal */
  countCommand(): void {
    this.#commands++;
  }

  /** @internal */
  forget(connection: MemoryConnection): void {
    this.#connections.delete(connection);
  }

  #subscribers(channel: string): number {
    let subscribed = 0;
    for (const connection of this.#connections) if (connection.listens(channel)) subscribed++;
    return subscribed;
  }

  #publish(channel: string, message: string): number {
    let receivers = 0;
    for (const connection of this.#connections) if (connection.deliver(channel, message)) receivers++;
    return receivers;
  }
}

class MemoryConnection implements StoreConnection {
  readonly publishCommand = 'publish';
  readonly subscribersVisible = true;
  readonly #store: MemoryStore;
  readonly #channels = new Map<string, Set<Listener>>();
  #closed = false;

  constructor(store: MemoryStore) {
    this.#store = store;
  }

  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[]): Observable<R> {
    return new Observable<R>((subscriber) => {
      this.call(script, keys, args, {
        next: (reply) => {
          subscriber.next(reply);
          subscriber.complete();
        },
        error: (error) => subscriber.error(error),
      });
    });
  }

  call<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], observer: ReplyObserver<R>): void {
    const store = this.#store;
    store.countCommand();
    if (this.#closed) {
      observer.error(new StoreError('closed', 'the connection is closed', false));
      return;
    }
    const fault = store.fault;
    if (fault === 'unavailable') {
      store.scheduler.schedule(() => observer.error(new StoreError('unavailable', 'connection refused', false)));
      return;
    }
    if (fault === 'blackhole') return;
    const argv = args.map(String);
    // Nothing cancels the action: a command that was sent runs, as on Redis.
    store.scheduler.schedule(() => {
      let reply: Reply;
      try {
        reply = script.memory(store.db, keys, argv);
      } catch (error) {
        observer.error(toStoreError(error));
        return;
      }
      observer.next(script.parse(reply));
    }, store.latencyMs);
  }

  listen(channel: string): Observable<ChannelEvent> {
    return new Observable<ChannelEvent>((subscriber) => {
      const store = this.#store;
      store.countCommand();
      const listener: Listener = (event) => subscriber.next(event);
      let listeners = this.#channels.get(channel);
      if (listeners === undefined) this.#channels.set(channel, (listeners = new Set()));
      listeners.add(listener);
      const confirmation = store.scheduler.schedule(() => subscriber.next({ type: 'ready' }), store.latencyMs);
      return () => {
        confirmation.unsubscribe();
        listeners.delete(listener);
        if (listeners.size === 0) this.#channels.delete(channel);
      };
    });
  }

  /** Queues a message for this connection's listeners of `channel`; says whether it is subscribed. */
  deliver(channel: string, message: string): boolean {
    const listeners = this.#channels.get(channel);
    if (listeners === undefined) return false;
    const store = this.#store;
    store.scheduler.schedule(() => {
      for (const listener of this.#channels.get(channel) ?? []) listener({ type: 'message', message });
    }, store.latencyMs);
    return true;
  }

  /** Whether this connection is subscribed to `channel`. */
  listens(channel: string): boolean {
    return this.#channels.has(channel);
  }

  channelCount(): number {
    return this.#channels.size;
  }

  epoch(): number {
    return this.#store.restarts;
  }

  serverInfo(): Observable<ServerInfo> {
    const store = this.#store;
    return new Observable<ServerInfo>((subscriber) => {
      const reply = store.scheduler.schedule(() => {
        subscriber.next(store.serverInfo());
        subscriber.complete();
      }, store.latencyMs);
      return () => reply.unsubscribe();
    });
  }

  slotOf(): number {
    return 0;
  }

  evictionPolicy(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#channels.clear();
    this.#store.forget(this);
    return Promise.resolve();
  }
}

function toStoreError(error: unknown): StoreError {
  if (error instanceof ScriptError) return classifyReplyError(error.message, error);
  return new StoreError('other', error instanceof Error ? error.message : String(error), false, { cause: error });
}

/**
 * Creates an in-memory store. See `MemoryStore`.
 *
 * @example
 * const store = createMemoryStore();
 * const locks = createLockClient({ store });
 * await locks.withLock('orders', () => processOrders());
 * expect(store.db.keys()).toEqual([]);
 */
export function createMemoryStore(options?: MemoryStoreOptions): MemoryStore {
  return new MemoryStore(options);
}
