import calculateSlot from 'cluster-key-slot';
import { EventEmitter } from 'node:events';
import { backgroundScheduler } from '../../../util/backgroundScheduler.js';
import type { NodeRedisClientLike, NodeRedisClusterLike, NodeRedisSentinelLike, SubscriberLike } from '../RedisLike.js';

/**
 * The pub/sub connections of node-redis, shown to `Subscriber` as ioredis shows its own: `status`, promise-returning
 * (un)subscribe commands, and the events `message`/`smessage` (channel, message), `ready` (the connection is
 * usable again, its channels subscribed again by node-redis itself), `end`, and `rxlock:moved` (channel): the
 * server moved a shard channel's slot away and node-redis dropped the channel's listeners.
 */

const noop = (): undefined => undefined;

/** How long a closed subscriber waits for a connection under way (or, on a cluster, its subscriptions) before it drops it anyway. */
const DROP_GUARD_MS = 1_000;

type Owned<T> = T & { connect(): Promise<unknown>; destroy?(): unknown; disconnect?(): unknown };

/** Closes a connection rxlock opened at once: `destroy()` (node-redis 5), `disconnect()` (node-redis 4). */
function drop(connection: Owned<object>): void {
  if (connection.destroy !== undefined) connection.destroy();
  else void Promise.resolve(connection.disconnect?.()).catch(noop);
}

/**
 * node-redis lets a connection destroyed while it connects finish connecting and stay open (sending it what was
 * queued for it), which would outlive close() and keep the process alive: it is dropped once `settled` (its
 * connect, and what was sent meanwhile) has settled, or after DROP_GUARD_MS if the server never answers.
 */
function dropOnceSettled(connection: Owned<{ readonly isOpen: boolean }>, settled: Promise<unknown>): void {
  const dropNow = (): void => {
    guard.unsubscribe();
    if (connection.isOpen) drop(connection);
  };
  const guard = backgroundScheduler.schedule(dropNow, DROP_GUARD_MS);
  void settled.then(dropNow, dropNow);
}

function unsupported(what: string): Promise<never> {
  return Promise.reject(new Error(`rxlock: ${what} is not used on this node-redis connection`));
}

/** rxlock's duplicate of a node-redis client, for classic pub/sub. */
export class NodeRedisSubscriber extends EventEmitter implements SubscriberLike {
  readonly #client: Owned<NodeRedisClientLike>;
  readonly #listener = (message: string, channel: string): void => {
    this.emit('message', channel, message);
  };

  constructor(client: Owned<NodeRedisClientLike>) {
    super();
    this.#client = client;
    // node-redis subscribes every channel again before it says `ready` after a reconnect.
    client.on('ready', () => this.emit('ready'));
    client.on('end', () => this.emit('end'));
    // Errors surface as reconnects; without a listener node-redis would throw them.
    client.on('error', noop);
    // Commands wait in node-redis's queue while it connects (or are refused without one, and sent on `ready`).
    client.connect().catch(noop);
  }

  get status(): string {
    if (!this.#client.isOpen) return 'end';
    return this.#client.isReady ? 'ready' : 'connecting';
  }

  subscribe(...channels: string[]): Promise<unknown> {
    return Promise.all(channels.map((channel) => this.#client.subscribe(channel, this.#listener)));
  }

  unsubscribe(...channels: string[]): Promise<unknown> {
    return Promise.all(channels.map((channel) => this.#client.unsubscribe(channel, this.#listener)));
  }

  ssubscribe(): Promise<unknown> {
    return unsupported('SSUBSCRIBE');
  }

  sunsubscribe(): Promise<unknown> {
    return unsupported('SUNSUBSCRIBE');
  }

  disconnect(): void {
    const client = this.#client;
    // destroy() throws on a client that is not open (never connected, or gave up reconnecting): nothing to close then.
    if (!client.isOpen) return;
    if (client.isReady) drop(client);
    else {
      const ready = new Promise<void>((resolve) => {
        const heard = (): void => {
          client.off('ready', heard);
          resolve();
        };
        client.on('ready', heard);
      });
      dropOnceSettled(client, ready);
    }
  }
}

interface ShardNode {
  readonly pubSub?: { readonly client?: EventEmitterLike };
}
interface EventEmitterLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
}
interface ClusterInternals {
  readonly slots?: readonly ({ readonly master?: ShardNode & { readonly client?: object } } | undefined)[];
  readonly masters?: readonly { readonly client?: object }[];
  readonly _slots?: { rediscover?(startWith: object): Promise<void> };
}

/**
 * rxlock's duplicate of a node-redis cluster: sharded pub/sub (SSUBSCRIBE on the node of each channel's slot),
 * or classic pub/sub on one node. node-redis 5 drops a shard channel's listeners when the server moves its
 * slot away (SUNSUBSCRIBE) without subscribing it on the new owner, so each shard connection's
 * `sharded-channel-moved` is reported as `rxlock:moved`, and `Subscriber` subscribes the channel again.
 */
export class NodeRedisClusterSubscriber extends EventEmitter implements SubscriberLike {
  readonly isCluster = true;
  readonly #cluster: Owned<NodeRedisClusterLike>;
  /** Settles once the cluster knows its slots: node-redis cannot route an SSUBSCRIBE before. */
  readonly #connected: Promise<unknown>;
  /** The shard connections whose events this already reports. */
  readonly #watched = new WeakSet<object>();
  /** Closed by rxlock: a subscription still waiting for the first connect is not sent, and that connection is dropped once made. */
  #closed = false;
  /** Subscriptions under way, each perhaps on a shard connection node-redis is still opening (see `disconnect`). */
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #sharded = (message: string, channel: string): void => {
    this.emit('smessage', channel, message);
  };
  readonly #classic = (message: string, channel: string): void => {
    this.emit('message', channel, message);
  };

  constructor(cluster: Owned<NodeRedisClusterLike>) {
    super();
    this.#cluster = cluster;
    cluster.on('error', noop);
    cluster.on('node-error', noop);
    cluster.on('disconnect', () => this.emit('end'));
    this.#connected = cluster.connect().then(() => this.emit('ready'), noop);
  }

  get status(): string {
    return this.#cluster.isOpen ? 'ready' : 'end';
  }

  async subscribe(...channels: string[]): Promise<unknown> {
    await this.#connected;
    if (this.#closed) return [];
    return this.#track(Promise.all(channels.map((channel) => this.#cluster.subscribe(channel, this.#classic))));
  }

  async unsubscribe(...channels: string[]): Promise<unknown> {
    await this.#connected;
    return Promise.all(channels.map((channel) => this.#cluster.unsubscribe(channel, this.#classic)));
  }

  async ssubscribe(...channels: string[]): Promise<unknown> {
    await this.#connected;
    if (this.#closed) return [];
    return this.#track(
      Promise.all(
        channels.map(async (channel) => {
          await this.#cluster.sSubscribe(channel, this.#sharded);
          this.#watchShardOf(channel);
        }),
      ),
    );
  }

  async sunsubscribe(...channels: string[]): Promise<unknown> {
    await this.#connected;
    return Promise.all(channels.map((channel) => this.#cluster.sUnsubscribe(channel, this.#sharded)));
  }

  /** Fetches the slot map again (after a move), then calls back. */
  refreshSlotsCache(callback?: (error?: Error | null) => void): void {
    const internals = this.#cluster as unknown as ClusterInternals;
    const start = internals.masters?.find((master) => master.client !== undefined)?.client;
    const rediscover = start === undefined ? undefined : internals._slots?.rediscover?.(start);
    void Promise.resolve(rediscover)
      .catch(noop)
      .then(() => callback?.());
  }

  disconnect(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#cluster.isOpen && this.#inFlight.size === 0) {
      drop(this.#cluster);
      return;
    }
    dropOnceSettled(this.#cluster, Promise.allSettled([this.#connected, ...this.#inFlight]));
  }

  #track(sent: Promise<unknown>): Promise<unknown> {
    this.#inFlight.add(sent);
    const settled = (): void => void this.#inFlight.delete(sent);
    sent.then(settled, settled);
    return sent;
  }

  /** The shard connection now serving `channel`: its moves and reconnects are reported. */
  #watchShardOf(channel: string): void {
    const internals = this.#cluster as unknown as ClusterInternals;
    const client = internals.slots?.[calculateSlot(channel)]?.master?.pubSub?.client;
    if (client === undefined || this.#watched.has(client)) return;
    this.#watched.add(client);
    client.on('sharded-channel-moved', (moved: string) => this.emit('rxlock:moved', moved));
    // After a reconnect node-redis subscribed this shard's channels again before `ready`.
    client.on('ready', () => this.emit('ready'));
  }
}

/**
 * The pub/sub of a node-redis sentinel: the sentinel's own pub/sub connection, which node-redis opens once per
 * sentinel and moves to the new master after a failover (node-redis has no `duplicate()` for a sentinel).
 * rxlock adds only its own listeners to it and removes them when it closes; the sentinel stays the user's.
 */
export class NodeRedisSentinelSubscriber extends EventEmitter implements SubscriberLike {
  readonly #sentinel: NodeRedisSentinelLike;
  readonly #channels = new Set<string>();
  #closed = false;
  readonly #listener = (message: string, channel: string): void => {
    this.emit('message', channel, message);
  };
  /** After a failover the sentinel subscribed the channels again on the new master: messages published meanwhile were lost. */
  readonly #onTopology = (event: { type?: unknown }): void => {
    if (event.type === 'MASTER_CHANGE') this.emit('ready');
  };

  constructor(sentinel: NodeRedisSentinelLike) {
    super();
    this.#sentinel = sentinel;
    sentinel.on('topology-change', this.#onTopology as (...args: string[]) => void);
    queueMicrotask(() => {
      if (!this.#closed && sentinel.isOpen) this.emit('ready');
    });
  }

  get status(): string {
    return this.#closed || !this.#sentinel.isOpen ? 'end' : 'ready';
  }

  subscribe(...channels: string[]): Promise<unknown> {
    for (const channel of channels) this.#channels.add(channel);
    return Promise.all(channels.map((channel) => this.#sentinel.subscribe(channel, this.#listener)));
  }

  unsubscribe(...channels: string[]): Promise<unknown> {
    for (const channel of channels) this.#channels.delete(channel);
    return Promise.all(channels.map((channel) => this.#sentinel.unsubscribe(channel, this.#listener)));
  }

  ssubscribe(): Promise<unknown> {
    return unsupported('SSUBSCRIBE');
  }

  sunsubscribe(): Promise<unknown> {
    return unsupported('SUNSUBSCRIBE');
  }

  disconnect(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sentinel.off('topology-change', this.#onTopology as (...args: string[]) => void);
    const channels = [...this.#channels];
    this.#channels.clear();
    if (this.#sentinel.isOpen) for (const channel of channels) this.#sentinel.unsubscribe(channel, this.#listener).catch(noop);
    this.emit('end');
  }
}
