import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { ChannelEvent } from '../Store.js';
import type { SubscriberLike } from './RedisLike.js';

type Listener = (event: ChannelEvent) => void;

interface Channel {
  readonly listeners: Set<Listener>;
  /** The server confirmed the latest (re)subscription. */
  confirmed: boolean;
  /**
   * The latest (re)subscription did not reach the server: the client refused it before it connected, or it
   * was held back during the handshake. The first `ready` sends it.
   */
  rejected: boolean;
  /** Resends the subscription if it is not confirmed in time. */
  retry: Subscription | undefined;
  retryMs: number;
}

/**
 * Statuses in which the connection has a socket that `disconnect()` must close. Between reconnect attempts
 * ioredis has none, and `disconnect()` then only cancels the next attempt: no `end` event ever follows.
 */
const OPEN_STATES = new Set(['connecting', 'connect', 'ready', 'monitoring']);
const END_GUARD_MS = 2_000;

/** How long a (re)subscription may go unconfirmed before it is sent again, and the longest pause between resends. */
const CONFIRM_MS = 2_000;
const MAX_CONFIRM_MS = 30_000;

/**
 * Redis 7.0 tells a shard-channel subscriber that a slot moved away by sending SUNSUBSCRIBE itself; ioredis 5
 * cannot match that reply to a command and reports it as a "Command queue state error" naming the reply.
 */
const SERVER_SUNSUBSCRIBE = /Last reply: sunsubscribe,(.+),\d+$/;

/** How a node-redis connection reports the same (see `nodeRedisSubscriber.ts`), with the channel. */
const MOVED_EVENT = 'rxlock:moved';

/**
 * The client's one pub/sub connection, opened on first use. Each channel is subscribed while it has a
 * listener, and its listeners hear `ready` each time the server confirms the subscription: after a
 * reconnect, and on a cluster after the topology changed (slot moved, master failed over), because
 * messages published meanwhile are lost. ioredis resubscribes by itself in most of these cases but has had
 * bugs there (ioredis #1759, #1957, #1987), so every channel is subscribed again and confirmed, and resent
 * until confirmed.
 */
export class Subscriber {
  readonly #open: () => SubscriberLike;
  readonly #sharded: boolean;
  readonly #scheduler: SchedulerLike;
  readonly #channels = new Map<string, Channel>();
  #connection: SubscriberLike | undefined;
  #readyOnce = false;
  #reconnects = 0;
  #resync: Subscription | undefined;
  #closed = false;

  constructor(open: () => SubscriberLike, sharded: boolean, scheduler: SchedulerLike) {
    this.#open = open;
    this.#sharded = sharded;
    this.#scheduler = scheduler;
  }

  /** How many times the subscription may have had a gap (reconnects, slot moves). */
  get epoch(): number {
    return this.#reconnects;
  }

  /** The channels subscribed now (or being subscribed). */
  channels(): IterableIterator<string> {
    return this.#channels.keys();
  }

  listen(channel: string): Observable<ChannelEvent> {
    return new Observable<ChannelEvent>((subscriber) => {
      const listener: Listener = (event) => subscriber.next(event);
      let entry = this.#channels.get(channel);
      const first = entry === undefined;
      if (entry === undefined) {
        entry = { listeners: new Set(), confirmed: false, rejected: false, retry: undefined, retryMs: CONFIRM_MS };
        this.#channels.set(channel, entry);
      }
      entry.listeners.add(listener);
      if (first) this.#subscribe([channel]);
      else if (entry.confirmed) this.#scheduler.schedule(() => listener({ type: 'ready' }));
      const joined = entry;
      return () => {
        joined.listeners.delete(listener);
        if (joined.listeners.size > 0 || this.#channels.get(channel) !== joined) return;
        this.#channels.delete(channel);
        joined.retry?.unsubscribe();
        if (!this.#closed && this.#connection !== undefined) {
          (this.#sharded ? this.#connection.sunsubscribe(channel) : this.#connection.unsubscribe(channel)).catch(() => undefined);
        }
      };
    });
  }

  /**
   * The topology may have changed (the command client saw a slot move or a failed node): on a sharded
   * cluster fetch the slot map again, then subscribe every channel again and tell its listeners once confirmed.
   */
  resync(): void {
    if (this.#closed || this.#connection === undefined || this.#resync !== undefined) return;
    this.#resync = this.#scheduler.schedule(() => {
      this.#resync = undefined;
      this.#refreshThen(() => this.#subscribe([...this.#channels.keys()]));
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#resync?.unsubscribe();
    for (const entry of this.#channels.values()) entry.retry?.unsubscribe();
    this.#channels.clear();
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection === undefined) return;
    connection.off('message', this.#onMessage);
    connection.off('smessage', this.#onMessage);
    connection.off('ready', this.#onReady);
    connection.off('subscribersReady', this.#onTopology);
    connection.off('nodeError', this.#onNodeError);
    connection.off(MOVED_EVENT, this.#onMoved);
    const hadSocket = OPEN_STATES.has(connection.status);
    connection.disconnect();
    if (!hadSocket || connection.status === 'end') return;
    await new Promise<void>((resolve) => {
      // ioredis emits `end` once the socket closed; the timer only guards against a connection that never says so.
      const guard = this.#scheduler.schedule(() => resolve(), END_GUARD_MS);
      connection.on('end', () => {
        guard.unsubscribe();
        resolve();
      });
    });
  }

  #subscribe(channels: readonly string[]): void {
    if (this.#closed || channels.length === 0) return;
    const connection = this.#connect();
    // During the handshake (status `connect`: connected, ready check not yet answered) ioredis 5 writes a
    // SUBSCRIBE at once; its ready check (INFO) then fails on a connection already subscribed, and it opens
    // another one, without the channels confirmed on the first (ioredis #2037). The first `ready` sends them.
    const holdBack = connection.status === 'connect' && connection.isCluster !== true;
    const sent: (readonly [string, Channel])[] = [];
    for (const channel of channels) {
      const entry = this.#channels.get(channel);
      if (entry === undefined) continue;
      sent.push([channel, entry]);
      entry.confirmed = false;
      entry.rejected = holdBack;
      entry.retry?.unsubscribe();
      const retryMs = entry.retryMs;
      // Unconfirmed in time (a lost reply, or ioredis dropping an SSUBSCRIBE answered with MOVED): send it again.
      entry.retry = this.#scheduler.schedule(() => {
        entry.retry = undefined;
        if (this.#channels.get(channel) !== entry || entry.confirmed) return;
        entry.retryMs = Math.min(MAX_CONFIRM_MS, entry.retryMs * 2);
        this.#refreshThen(() => this.#subscribe([channel]));
      }, retryMs);
    }
    // By entry, not by name: a channel left and listened to again has a new entry, which only the reply to its
    // own SUBSCRIBE confirms (the server ran the UNSUBSCRIBE between the two).
    const confirm = (confirmed: readonly (readonly [string, Channel])[]) => () => {
      for (const [channel, entry] of confirmed) {
        if (this.#channels.get(channel) !== entry || entry.confirmed) continue;
        entry.confirmed = true;
        entry.retryMs = CONFIRM_MS;
        entry.retry?.unsubscribe();
        entry.retry = undefined;
        for (const listener of [...entry.listeners]) listener({ type: 'ready' });
      }
    };
    const reject = (rejected: readonly (readonly [string, Channel])[]) => () => {
      for (const [, entry] of rejected) if (!entry.confirmed) entry.rejected = true;
    };
    if (holdBack || sent.length === 0) return;
    // A failed subscription is sent again by the confirmation timer, or when the connection is ready if the
    // client refused it before that (see `#onReady`); waiters still have their TTL fallback.
    if (this.#sharded) {
      // Channels of different slots live on different nodes: one SSUBSCRIBE each.
      for (const one of sent) connection.ssubscribe(one[0]).then(confirm([one]), reject([one]));
    } else {
      connection.subscribe(...sent.map(([channel]) => channel)).then(confirm(sent), reject(sent));
    }
  }

  #refreshThen(then: () => void): void {
    const connection = this.#connection;
    if (!this.#sharded || connection?.refreshSlotsCache === undefined) {
      then();
      return;
    }
    connection.refreshSlotsCache(() => {
      if (!this.#closed) then();
    });
  }

  #connect(): SubscriberLike {
    if (this.#connection !== undefined) return this.#connection;
    const connection = this.#open();
    connection.on('message', this.#onMessage);
    connection.on('smessage', this.#onMessage);
    connection.on('ready', this.#onReady);
    connection.on('subscribersReady', this.#onTopology);
    connection.on('nodeError', this.#onNodeError);
    connection.on(MOVED_EVENT, this.#onMoved);
    // Errors surface as reconnects; without a listener ioredis would print them.
    connection.on('error', () => undefined);
    this.#connection = connection;
    return connection;
  }

  readonly #onMessage = (channel: string, message: string): void => {
    for (const listener of [...(this.#channels.get(channel)?.listeners ?? [])]) listener({ type: 'message', message });
  };

  readonly #onReady = (): void => {
    if (!this.#readyOnce) {
      this.#readyOnce = true;
      // The first subscriptions waited in ioredis's offline queue, unless the client has none
      // (`enableOfflineQueue: false`, often with `lazyConnect`) and refused them, or they were held back during
      // the handshake: those go now. So does any confirmed before this first ready, on a connection that may
      // not be this one.
      this.#subscribe([...this.#channels].filter(([, entry]) => entry.rejected || entry.confirmed).map(([channel]) => channel));
      return;
    }
    this.#reconnects++;
    this.#subscribe([...this.#channels.keys()]);
  };

  /** A sharded Cluster rebuilt its per-shard subscribers after a slot-map change. */
  readonly #onTopology = (): void => {
    this.#subscribe([...this.#channels.keys()]);
  };

  readonly #onNodeError = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    const channel = SERVER_SUNSUBSCRIBE.exec(message)?.[1];
    if (channel !== undefined) this.#onMoved(channel);
  };

  /** The server moved a shard channel's slot away and unsubscribed it: subscribe it again where its slot lives now. */
  readonly #onMoved = (channel: string): void => {
    if (!this.#channels.has(channel)) return;
    this.#reconnects++;
    const entry = this.#channels.get(channel);
    if (entry !== undefined) entry.confirmed = false;
    this.resync();
  };
}
