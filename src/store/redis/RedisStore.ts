import calculateSlot from 'cluster-key-slot';
import { defer, Observable, type SchedulerLike } from 'rxjs';
import type { Reply, Script } from '../Script.js';
import type { ChannelEvent, LockStore, ReplyObserver, RunOptions, ServerInfo, StoreConnection } from '../Store.js';
import { StoreError } from '../StoreError.js';
import { classifyRedisError } from './classifyRedisError.js';
import { driverFor } from './driver/driverFor.js';
import type { RedisDriver } from './driver/RedisDriver.js';
import { serverMajorVersion, SHARDED_PUBSUB_REQUIREMENT, type PublishCommand, type ShardedPubSubSetting } from './pubSubMode.js';
import type { RedisLike } from './RedisLike.js';
import { acknowledgedReplicas, AOF_OFF, waitCommand, waitKindOf, type WaitKind } from './replicaWait.js';
import { Subscriber } from './Subscriber.js';

/** Options of `redisStore`. */
export interface RedisStoreOptions {
  /**
   * How wake-ups travel on a Redis Cluster. `'auto'` uses sharded pub/sub (SPUBLISH/SSUBSCRIBE), so that a
   * wake-up costs one shard rather than the whole cluster, when the client routes SSUBSCRIBE per shard (an
   * ioredis Cluster created with `shardedSubscribers: true`, or a node-redis cluster) and the server is Redis 7
   * or newer, and classic pub/sub otherwise. `true` insists on it (and fails every command when it is not
   * available); `false` always uses classic pub/sub. Every client of one lock must use the same kind (Redisson
   * on a Redis 7 cluster uses sharded).
   * @default 'auto'
   */
  shardedPubSub?: ShardedPubSubSetting | undefined;
  /**
   * How long `WAIT` (or `WAITAOF`) may take when the client asks for replica acknowledgements.
   * @default 1000
   */
  replicaTimeoutMs?: number | undefined;
}

/**
 * A store on a Redis client: ioredis (`Redis`, `Cluster`; ioredis 5 or 6, or iovalkey) or node-redis 5
 * (`createClient`, `createCluster`, `createSentinel`). `createLockClient({ redis })` is shorthand for
 * `createLockClient({ store: redisStore(redis) })`.
 */
export function redisStore(redis: RedisLike, options: RedisStoreOptions = {}): LockStore {
  return driverStore(driverFor(redis, 'redisStore', 'the client'), options);
}

/** A store over a client's driver (`redisStore` once the client is recognised; one per master in Redlock). */
export function driverStore(driver: RedisDriver, options: RedisStoreOptions = {}): LockStore {
  const { shardedPubSub = 'auto' } = options;
  if (shardedPubSub !== 'auto' && typeof shardedPubSub !== 'boolean') {
    throw new TypeError(`rxlock: redisStore: option "shardedPubSub" must be 'auto', true or false, got ${JSON.stringify(shardedPubSub)}`);
  }
  if (shardedPubSub === true && !driver.shardedSubscribers) {
    throw new TypeError(`rxlock: redisStore: option "shardedPubSub" is true, but ${SHARDED_PUBSUB_REQUIREMENT}`);
  }
  return { connect: (scheduler) => new RedisConnection(driver, scheduler, { ...options, shardedPubSub }) };
}

const NOSCRIPT = /^NOSCRIPT/;
const MOVED = /^MOVED /;
/** NOSCRIPT, then MOVED once or twice while a slot map settles, or a connection that dropped. */
const MAX_RESENDS = 4;

/** One lock client's connection through a client driver: everything here is the same for every Redis client library. */
class RedisConnection implements StoreConnection {
  readonly #driver: RedisDriver;
  readonly #scheduler: SchedulerLike;
  readonly #replicaTimeoutMs: number;
  /** Changes at most once, when the version check finds a server without sharded pub/sub. */
  publishCommand: PublishCommand;

  get subscribersVisible(): boolean {
    return this.publishCommand === 'spublish' || !this.#driver.isCluster;
  }

  /**
   * Pending while the server version is checked. Subscriptions wait for it; scripts do not (they would pay a
   * round trip), so on a Redis 6 cluster wrongly set up for sharded pub/sub the very first scripts may fail.
   */
  #detecting: Promise<void> | undefined;
  /** Set when `shardedPubSub: true` cannot be honoured: every command fails with it. */
  #unsupported: StoreError | undefined;
  #subscriber: Subscriber | undefined;
  /** Scripts this connection saw run, so probably in the server's script cache (per node on a cluster). */
  readonly #loaded = new Set<string>();
  /** WAIT or WAITAOF behind scripts that need replica acknowledgements: probed once, at the first of them. */
  #waitKind: Promise<WaitKind> | undefined;
  #epoch = 0;
  #closed = false;
  readonly #unwatch: () => void;
  /** Which node served the slot of each subscribed shard channel at the last slot-map refresh. */
  #owners = new Map<number, string>();

  constructor(driver: RedisDriver, scheduler: SchedulerLike, options: RedisStoreOptions & { shardedPubSub: ShardedPubSubSetting }) {
    this.#driver = driver;
    this.#scheduler = scheduler;
    this.#replicaTimeoutMs = options.replicaTimeoutMs ?? 1_000;
    const shard = options.shardedPubSub !== false && driver.shardedSubscribers;
    this.publishCommand = shard ? 'spublish' : 'publish';
    if (shard) this.#detecting = this.#checkServerVersion(options.shardedPubSub === true);
    this.#unwatch = driver.watch({
      connectionLost: () => {
        this.#epoch++;
      },
      topologyChanged: () => this.#onTopology(),
      nodeLost: () => {
        this.#epoch++;
        this.#subscriber?.resync();
      },
      // The user closed their client (or it gave up): the subscriber rxlock opened goes too, so that nothing of
      // rxlock's keeps a finished process alive. Commands from now on fail with the client's state.
      ended: () => {
        void this.#closeSubscriber();
      },
    });
  }

  /**
   * The command client fetched the slot map again (a MOVED, a failed node, `slotsRefreshInterval`): shard
   * channels must follow their slots if one of theirs changed owner. Classic channels are not tied to slots.
   */
  #onTopology(): void {
    if (this.publishCommand !== 'spublish' || this.#subscriber === undefined) return;
    const owners = new Map<number, string>();
    let moved = false;
    for (const channel of this.#subscriber.channels()) {
      const slot = calculateSlot(channel);
      const owner = this.#driver.slotOwner(slot);
      if (owner === undefined || this.#owners.get(slot) !== owner) moved = true;
      owners.set(slot, owner ?? '');
    }
    this.#owners = owners;
    if (moved) this.#subscriber.resync();
  }

  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], options?: RunOptions): Observable<R> {
    return new Observable<R>((subscriber) => {
      this.call(
        script,
        keys,
        args,
        {
          next: (reply) => {
            subscriber.next(reply);
            subscriber.complete();
          },
          error: (error) => subscriber.error(error),
        },
        options,
      );
    });
  }

  call<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], observer: ReplyObserver<R>, options?: RunOptions): void {
    const refusal = this.#refusal();
    if (refusal !== undefined) {
      // Replies never arrive inside the caller's stack.
      void Promise.resolve().then(() => observer.error(refusal));
      return;
    }
    const replicas = options?.replicas ?? 0;
    if (replicas > 0) {
      this.#runWithWait(script, keys, args, replicas, options?.replicaTimeoutMs ?? this.#replicaTimeoutMs).then(
        (reply) => deliver(script, reply, observer),
        (error: unknown) => observer.error(classifyRedisError(error)),
      );
      return;
    }
    if (!this.#loaded.has(script.sha1)) {
      // First use: the body, so that the command runs where it stands in the connection's order. An EVALSHA
      // answered NOSCRIPT would be re-sent behind commands sent after it (a compensation behind the retry it must precede).
      this.#driver.eval(script.lua, keys, args).then(
        (reply) => {
          this.#loaded.add(script.sha1);
          deliver(script, reply, observer);
        },
        (error: unknown) => {
          if (this.#driver.droppedInFlight(error)) this.#sendBodyAgain(script, keys, args, observer);
          else observer.error(classifyRedisError(error));
        },
      );
      return;
    }
    // The hot path: one promise per command, no async function.
    this.#driver.evalsha(script.sha1, keys, args).then(
      (reply) => deliver(script, reply, observer),
      (error: unknown) => {
        // The script cache was flushed (SCRIPT FLUSH, restart, failover), or the connection dropped with the
        // command in flight (where the client does not send it again itself): send the body once.
        if ((error instanceof Error && NOSCRIPT.test(error.message)) || this.#driver.droppedInFlight(error)) this.#sendBodyAgain(script, keys, args, observer);
        else observer.error(classifyRedisError(error));
      },
    );
  }

  /** The second and last try of a script: its body, which runs whether or not the server still has it cached. */
  #sendBodyAgain<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[], observer: ReplyObserver<R>): void {
    this.#driver.eval(script.lua, keys, args).then(
      (reply) => deliver(script, reply, observer),
      (error: unknown) => observer.error(classifyRedisError(error)),
    );
  }

  async #runWithWait(
    script: Script<unknown>,
    keys: readonly string[],
    args: readonly (string | number)[],
    replicas: number,
    timeoutMs: number,
  ): Promise<unknown> {
    let kind = await (this.#waitKind ??= this.#probeWaitKind());
    const send = (useBody: boolean) => this.#driver.scriptThenWait(script, useBody, keys, args, waitCommand(kind, replicas, timeoutMs));
    // A NOSCRIPT in the pipeline would still make the WAIT behind it block: send the body until this script is known loaded.
    let results = await send(!this.#loaded.has(script.sha1));
    let resentAfterDrop = false;
    const dropped = (error: Error | null): boolean => error !== null && this.#driver.droppedInFlight(error);
    for (let resends = 0; resends < MAX_RESENDS; resends++) {
      const scriptError = results[0][0];
      const waitError = results[1][0];
      if (!resentAfterDrop && (dropped(scriptError) || dropped(waitError))) {
        // The connection dropped with the pair in flight: send both again, once, as for a script alone (and as
        // ioredis does). The script is safe to run twice; a WAIT counts its own connection's writes only.
        resentAfterDrop = true;
        results = await send(true);
        continue;
      }
      if (scriptError === null && waitError !== null && kind === 'waitaof' && AOF_OFF.test(waitError.message)) {
        // AOF was turned off since the probe: the script ran, and WAIT still counts its replicas.
        this.#waitKind = Promise.resolve('wait');
        kind = 'wait';
        results = [results[0], (await this.#driver.scriptThenWait(script, false, keys, args, waitCommand(kind, replicas, timeoutMs)))[1]];
        break;
      }
      if (!(scriptError instanceof Error)) break;
      if (NOSCRIPT.test(scriptError.message)) {
        this.#loaded.delete(script.sha1);
        results = await send(true);
      } else if (MOVED.test(scriptError.message)) {
        // A MOVED in the pipeline is not followed (its WAIT would stay on the old node): the script did not run,
        // so send it where it belongs now. Anything else (ASK, TRYAGAIN, CLUSTERDOWN) goes back to the engine
        // as a transient failure, so that no old attempt outlives the engine's timeout and runs after its compensation.
        await this.#driver.refreshSlots();
        results = await send(!this.#loaded.has(script.sha1));
      } else {
        break;
      }
    }
    const [[scriptError, reply], [waitError, acknowledged]] = results;
    if (scriptError !== null) throw scriptError;
    this.#loaded.add(script.sha1);
    if (waitError !== null) throw waitError;
    if (acknowledgedReplicas(kind, acknowledged) <= 0) {
      const what = kind === 'waitaof' ? 'fsynced the writes of' : 'acknowledged';
      throw new StoreError('no-replicas', `no replica ${what} ${script.name} within ${timeoutMs} ms (asked for ${replicas}, with ${kind.toUpperCase()})`, true);
    }
    return reply;
  }

  /** WAITAOF where the server has AOF on and knows it, WAIT otherwise; WAIT when the server cannot say (probed again next time). */
  async #probeWaitKind(): Promise<WaitKind> {
    try {
      return await waitKindOf(this.#driver);
    } catch (error) {
      this.#waitKind = undefined;
      throw error;
    }
  }

  /** Why no command can be sent: `shardedPubSub: true` that cannot be honoured, or the user's client closed or not connected. */
  #refusal(): StoreError | undefined {
    if (this.#unsupported !== undefined) return this.#unsupported;
    const unusable = this.#driver.unusable();
    return unusable === undefined ? undefined : new StoreError('closed', unusable, false);
  }

  listen(channel: string): Observable<ChannelEvent> {
    return new Observable<ChannelEvent>((subscriber) => {
      let inner: { unsubscribe(): void } | undefined;
      let active = true;
      const start = (): void => {
        // Nothing is opened for a closed connection or a client that is closed (until its owner connects it again):
        // waiters' attempts fail with the client's state meanwhile.
        if (active && !this.#closed && this.#driver.unusable() === undefined) inner = this.#subscriberOf().listen(channel).subscribe(subscriber);
      };
      if (this.#detecting === undefined) start();
      else void this.#detecting.then(start);
      return () => {
        active = false;
        inner?.unsubscribe();
      };
    });
  }

  epoch(): number {
    return this.#epoch + (this.#subscriber?.epoch ?? 0);
  }

  slotOf(key: string): number {
    return this.#driver.isCluster ? calculateSlot(key) : 0;
  }

  serverInfo(): Observable<ServerInfo> {
    return defer(async () => {
      const info = await this.#driver.info('server');
      const runId = /^run_id:(\S+)/m.exec(info)?.[1] ?? '';
      const uptime = Number(/^uptime_in_seconds:(\d+)/m.exec(info)?.[1] ?? 'NaN');
      if (!Number.isFinite(uptime)) throw new StoreError('other', 'INFO server did not say how long the server has been up', false);
      // Redis counts whole seconds from a start time truncated to the second: the server may have been up
      // almost a second less than it says. Count that second off, so that a restart guard never ends early.
      return { runId, uptimeMs: Math.max(0, uptime - 1) * 1_000 };
    });
  }

  async evictionPolicy(): Promise<string | undefined> {
    const info = await this.#driver.info('memory');
    return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unwatch();
    await this.#closeSubscriber();
  }

  async #closeSubscriber(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    await subscriber?.close();
  }

  #subscriberOf(): Subscriber {
    this.#subscriber ??= new Subscriber(() => this.#driver.openSubscriber(), this.publishCommand === 'spublish', this.#scheduler);
    return this.#subscriber;
  }

  /** Sharded pub/sub needs Redis 7; on an older server fall back to classic pub/sub, or fail when it was insisted on. */
  async #checkServerVersion(insist: boolean): Promise<void> {
    try {
      const major = await serverMajorVersion(this.#driver);
      if (major !== undefined && major < 7) {
        if (insist)
          this.#unsupported = new StoreError('other', `rxlock: shardedPubSub is true, but the server is Redis ${major}: ${SHARDED_PUBSUB_REQUIREMENT}`, false);
        this.publishCommand = 'publish';
      }
    } catch {
      // The cluster is not reachable yet: keep what the client's options say; the first commands will report the outage.
    } finally {
      this.#detecting = undefined;
    }
  }
}

/** Hands a script's reply to its observer: at once, or after the input already read if it handed a lock over (`Script.handsOver`). */
function deliver<R>(script: Script<R>, reply: unknown, observer: ReplyObserver<R>): void {
  if (script.handsOver?.(reply as Reply) === true) setImmediate(deliverNow, script, reply, observer);
  else deliverNow(script, reply, observer);
}

/** Parses a script's reply for its observer; a reply the script cannot read is a store error, not a crash. */
function deliverNow<R>(script: Script<R>, reply: unknown, observer: ReplyObserver<R>): void {
  let parsed: R;
  try {
    parsed = script.parse(reply as Reply);
  } catch (error) {
    observer.error(new StoreError('other', `unexpected reply from ${script.name}: ${String(error)}`, false, { cause: error }));
    return;
  }
  observer.next(parsed);
}
