import calculateSlot from 'cluster-key-slot';
import type { NodeRedisClientLike, NodeRedisClusterLike, NodeRedisCommandOptions, NodeRedisSentinelLike, SubscriberLike } from '../RedisLike.js';
import { isErrorReply, nodeRedisGaveUp } from './nodeRedisErrors.js';
import { NodeRedisClusterSubscriber, NodeRedisSentinelSubscriber, NodeRedisSubscriber } from './nodeRedisSubscriber.js';
import type { DriverHooks, PipelineResult, RedisDriver, WaitCommand } from './RedisDriver.js';

/**
 * Every rxlock command's options: an empty type mapping, so that replies are read as RESP decodes them
 * (strings, numbers, arrays, null) whatever mapping the user gave the client (`withTypeMapping`,
 * `commandOptions.typeMapping`). Shared and frozen: node-redis only reads it.
 */
const RAW: NodeRedisCommandOptions = Object.freeze({ typeMapping: Object.freeze({}) });

/** A node-redis client that rxlock reaches into for cluster routing: public getters of node-redis 5 that its types do not need to name. */
interface ClusterInternals {
  readonly slots?: readonly ({ readonly master?: ClusterNode } | undefined)[];
  readonly masters?: readonly ClusterNode[];
  nodeClient?(node: ClusterNode): NodeRedisClientLike | Promise<NodeRedisClientLike>;
  readonly _slots?: { rediscover?(startWith: object): Promise<void> };
}

interface ClusterNode {
  readonly address?: string;
  readonly client?: NodeRedisClientLike;
}

/** `['EVALSHA', sha1, numkeys, ...keys, ...args]` as strings, built by index (no spread, no flat). */
function scriptArgs(command: 'EVALSHA' | 'EVAL', body: string, keys: readonly string[], args: readonly (string | number)[]): string[] {
  const keyCount = keys.length;
  const flat = new Array<string>(3 + keyCount + args.length);
  flat[0] = command;
  flat[1] = body;
  flat[2] = String(keyCount);
  let at = 3;
  for (let i = 0; i < keyCount; i++) flat[at++] = keys[i] as string;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    flat[at++] = typeof arg === 'string' ? arg : String(arg);
  }
  return flat;
}

function waitArgs(wait: WaitCommand): string[] {
  return wait.command === 'wait'
    ? ['WAIT', String(wait.replicas), String(wait.timeoutMs)]
    : ['WAITAOF', String(wait.local), String(wait.replicas), String(wait.timeoutMs)];
}

function settled(promise: Promise<unknown>): Promise<PipelineResult> {
  return promise.then(
    (reply) => [null, reply] as const,
    (error: unknown) => [error instanceof Error ? error : new Error(String(error)), null] as const,
  );
}

type ScriptBody = { readonly lua: string; readonly sha1: string };

/** A script and its WAIT, both queued in this tick on one connection: node-redis writes them together, in order. */
function scriptThenWaitOn(
  send: (args: string[]) => Promise<unknown>,
  script: ScriptBody,
  useBody: boolean,
  keys: readonly string[],
  args: readonly (string | number)[],
  wait: WaitCommand,
): Promise<readonly [PipelineResult, PipelineResult]> {
  return Promise.all([
    settled(send(scriptArgs(useBody ? 'EVAL' : 'EVALSHA', useBody ? script.lua : script.sha1, keys, args))),
    settled(send(waitArgs(wait))),
  ] as const);
}

/** What the three node-redis drivers share: how scripts are sent, and the open/closed state and its messages. */
abstract class NodeRedisBase implements Pick<
  RedisDriver,
  'unusable' | 'isReplyError' | 'droppedInFlight' | 'evalsha' | 'eval' | 'info' | 'refreshSlots' | 'slotOwner'
> {
  abstract readonly description: string;
  /** Seen open at least once: a client that is not open now was then closed or gave up, rather than never connected. */
  #seenOpen = false;
  /** Seen its `end` (closed by its owner) */
  protected ended = false;
  protected abstract readonly client: { readonly isOpen: boolean };

  /** Sends one command where this kind of client sends it: its connection, the current master, or the node serving `key`. */
  protected abstract send(args: string[], key?: string, isReadonly?: boolean): Promise<unknown>;

  evalsha(sha1: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.send(scriptArgs('EVALSHA', sha1, keys, args), keys[0]);
  }

  eval(lua: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.send(scriptArgs('EVAL', lua, keys, args), keys[0]);
  }

  async info(section: string): Promise<string> {
    return String(await this.send(['INFO', section], undefined, true));
  }

  refreshSlots(): Promise<void> {
    return Promise.resolve();
  }

  /** Only a cluster maps slots to nodes. */
  slotOwner(_slot: number): string | undefined {
    return undefined;
  }

  unusable(): string | undefined {
    if (this.client.isOpen) {
      this.#seenOpen = true;
      return undefined;
    }
    if (this.ended) return `${this.description} is closed (close, destroy, quit or disconnect was called)`;
    if (this.#seenOpen) return `${this.description} gave up reconnecting (its reconnectStrategy returned false or an Error)`;
    return `${this.description} is not connected: connect it first (\`await client.connect()\`), and pass one that is not closed`;
  }

  isReplyError(error: unknown): boolean {
    return isErrorReply(error);
  }

  /**
   * node-redis fails the commands a dropped connection had in flight (with the socket's error) and reconnects
   * while it stays open; any other failure of a client that is still open and not ended is one of those, except
   * node-redis's own give-ups: a command it never sent must not be sent after the engine gave up on it (behind
   * the compensation that released it), and one it stopped waiting for is still on its way.
   */
  droppedInFlight(error: unknown): boolean {
    return error instanceof Error && !isErrorReply(error) && nodeRedisGaveUp(error) === undefined && this.client.isOpen && !this.ended;
  }

  /** Seen open now, so that a later failure reads as closed or gave up. */
  protected noteState(): void {
    if (this.client.isOpen) this.#seenOpen = true;
  }
}

/** The driver for a node-redis client (`createClient`). */
export class NodeRedisClientDriver extends NodeRedisBase implements RedisDriver {
  readonly description = 'the node-redis client';
  readonly isCluster = false;
  readonly shardedSubscribers = false;
  protected readonly client: NodeRedisClientLike;

  constructor(client: NodeRedisClientLike) {
    super();
    this.client = client;
    this.noteState();
  }

  protected send(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args, RAW);
  }

  scriptThenWait(
    script: ScriptBody,
    useBody: boolean,
    keys: readonly string[],
    args: readonly (string | number)[],
    wait: WaitCommand,
  ): Promise<readonly [PipelineResult, PipelineResult]> {
    return scriptThenWaitOn((command) => this.send(command), script, useBody, keys, args, wait);
  }

  watch(hooks: DriverHooks): () => void {
    const client = this.client;
    // No `error` listener: one added here would stop node-redis from throwing a client's unhandled errors, which
    // is its owner's choice. A reconnect is announced by `reconnecting`; a client that gave up is seen by `unusable()`.
    const onReconnecting = (): void => {
      this.noteState();
      hooks.connectionLost();
    };
    const onEnd = (): void => {
      this.ended = true;
      hooks.connectionLost();
      hooks.ended();
    };
    const onReady = (): void => this.noteState();
    client.on('reconnecting', onReconnecting);
    client.on('end', onEnd);
    client.on('ready', onReady);
    return () => {
      client.off('reconnecting', onReconnecting);
      client.off('end', onEnd);
      client.off('ready', onReady);
    };
  }

  openSubscriber(): SubscriberLike {
    return new NodeRedisSubscriber(this.client.duplicate() as NodeRedisClientLike & { connect(): Promise<unknown> });
  }
}

/** The driver for a node-redis cluster (`createCluster`). */
export class NodeRedisClusterDriver extends NodeRedisBase implements RedisDriver {
  readonly description = 'the node-redis cluster';
  readonly isCluster = true;
  /** node-redis keeps a sharded subscriber per shard for any cluster (the server must be Redis 7 or newer). */
  readonly shardedSubscribers = true;
  protected readonly client: NodeRedisClusterLike;
  /** Settles when a cluster that was still discovering its slots first has them. */
  #mapping: Promise<void> | undefined;
  /** It had its slots once: from then on a rediscovery's gap fails commands (transient), as node-redis does. */
  #everMapped = false;

  constructor(cluster: NodeRedisClusterLike) {
    super();
    this.client = cluster;
    this.noteState();
  }

  /**
   * node-redis queues a standalone client's commands while it connects, but a cluster's fail while it has not
   * discovered its slots yet (a TypeError): until then they wait for its `connect`.
   */
  protected send(args: string[], key?: string, isReadonly = false): Promise<unknown> {
    const mapping = this.#mapped();
    if (mapping === undefined) return this.client.sendCommand(key, isReadonly, args, RAW);
    return mapping.then(() => this.client.sendCommand(key, isReadonly, args, RAW));
  }

  #mapped(): Promise<void> | undefined {
    if (this.#everMapped) return undefined;
    if ((this.client as unknown as ClusterInternals).masters?.length !== 0) {
      this.#everMapped = true;
      return undefined;
    }
    this.#mapping ??= new Promise<void>((resolve) => {
      const cluster = this.client;
      const done = (): void => {
        cluster.off('connect', done);
        cluster.off('disconnect', done);
        this.#mapping = undefined;
        resolve();
      };
      cluster.on('connect', done);
      // Closed before it connected: the command fails with node-redis's own error.
      cluster.on('disconnect', done);
    });
    return this.#mapping;
  }

  async scriptThenWait(
    script: ScriptBody,
    useBody: boolean,
    keys: readonly string[],
    args: readonly (string | number)[],
    wait: WaitCommand,
  ): Promise<readonly [PipelineResult, PipelineResult]> {
    await this.#mapped();
    // On the node's own client, where a MOVED comes back instead of being followed (the WAIT would stay behind).
    const internals = this.client as unknown as ClusterInternals;
    const master = internals.slots?.[calculateSlot(keys[0] ?? '')]?.master;
    if (master === undefined || internals.nodeClient === undefined)
      throw new Error("Cluster isn't ready: no node serves this slot in the node-redis cluster's slot map");
    const node = await internals.nodeClient(master);
    return scriptThenWaitOn((command) => node.sendCommand(command, RAW), script, useBody, keys, args, wait);
  }

  override async refreshSlots(): Promise<void> {
    const internals = this.client as unknown as ClusterInternals;
    const start = internals.masters?.find((master) => master.client !== undefined)?.client;
    if (start === undefined || internals._slots?.rediscover === undefined) return;
    await internals._slots.rediscover(start).catch(() => undefined);
  }

  override slotOwner(slot: number): string | undefined {
    return (this.client as unknown as ClusterInternals).slots?.[slot]?.master?.address;
  }

  watch(hooks: DriverHooks): () => void {
    const cluster = this.client;
    const onNodeReconnecting = (): void => {
      this.noteState();
      hooks.connectionLost();
    };
    const onNodeGone = (): void => {
      hooks.connectionLost();
      hooks.nodeLost();
    };
    const onDisconnect = (): void => {
      this.ended = true;
      hooks.connectionLost();
      hooks.ended();
    };
    cluster.on('node-reconnecting', onNodeReconnecting);
    cluster.on('node-disconnect', onNodeGone);
    cluster.on('disconnect', onDisconnect);
    return () => {
      cluster.off('node-reconnecting', onNodeReconnecting);
      cluster.off('node-disconnect', onNodeGone);
      cluster.off('disconnect', onDisconnect);
    };
  }

  openSubscriber(): SubscriberLike {
    return new NodeRedisClusterSubscriber(this.client.duplicate() as NodeRedisClusterLike & { connect(): Promise<unknown> });
  }
}

/** The lease of one master connection of a node-redis sentinel, for two commands back to back on it. */
interface SentinelLease {
  sendCommand(isReadonly: boolean | undefined, args: string[], options?: NodeRedisCommandOptions): Promise<unknown>;
}

/** The driver for a node-redis sentinel (`createSentinel`): commands to the current master. */
export class NodeRedisSentinelDriver extends NodeRedisBase implements RedisDriver {
  readonly description = 'the node-redis sentinel';
  readonly isCluster = false;
  readonly shardedSubscribers = false;
  protected readonly client: NodeRedisSentinelLike;

  constructor(sentinel: NodeRedisSentinelLike) {
    super();
    this.client = sentinel;
    this.noteState();
  }

  /** Always to the master, for reads too: INFO must describe the server that holds the locks. */
  protected send(args: string[]): Promise<unknown> {
    return this.client.sendCommand(false, args, RAW);
  }

  async scriptThenWait(
    script: ScriptBody,
    useBody: boolean,
    keys: readonly string[],
    args: readonly (string | number)[],
    wait: WaitCommand,
  ): Promise<readonly [PipelineResult, PipelineResult]> {
    // One leased master connection for both: WAIT counts the writes of its own connection only.
    const sentinel = this.client as unknown as {
      use?(fn: (lease: SentinelLease) => Promise<readonly [PipelineResult, PipelineResult]>): Promise<readonly [PipelineResult, PipelineResult]>;
    };
    if (sentinel.use === undefined) throw new TypeError('rxlock: the node-redis sentinel has no use() to send a script and its WAIT on one connection');
    return sentinel.use((lease) => scriptThenWaitOn((command) => lease.sendCommand(false, command, RAW), script, useBody, keys, args, wait));
  }

  watch(hooks: DriverHooks): () => void {
    const sentinel = this.client;
    // A new master: commands sent before it and answered after may have run on either.
    const onTopology = (event: { type?: unknown }): void => {
      this.noteState();
      if (event.type === 'MASTER_CHANGE') hooks.connectionLost();
    };
    sentinel.on('topology-change', onTopology as (...args: string[]) => void);
    return () => sentinel.off('topology-change', onTopology as (...args: string[]) => void);
  }

  /** The sentinel's own pub/sub connection (node-redis opens one per sentinel and moves it with the master). */
  openSubscriber(): SubscriberLike {
    return new NodeRedisSentinelSubscriber(this.client);
  }
}
