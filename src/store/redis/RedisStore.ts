import calculateSlot from 'cluster-key-slot';
import { Observable, type SchedulerLike } from 'rxjs';
import type { Reply, Script } from '../Script.js';
import type { ChannelEvent, LockStore, ReplyObserver, RunOptions, StoreConnection } from '../Store.js';
import { StoreError } from '../StoreError.js';
import { classifyRedisError } from './classifyRedisError.js';
import { hasShardedSubscribers, serverMajorVersion, SHARDED_PUBSUB_REQUIREMENT, type PublishCommand, type ShardedPubSubSetting } from './pubSubMode.js';
import { preparedEvalsha, type EvalshaSender } from './preparedEvalsha.js';
import type { RedisLike, SubscriberLike } from './RedisLike.js';
import { Subscriber } from './Subscriber.js';

export interface RedisStoreOptions {
  /**
   * How wake-ups travel on a Redis Cluster. `'auto'` uses sharded pub/sub (SPUBLISH/SSUBSCRIBE), so that a
   * wake-up costs one shard rather than the whole cluster, when the client is an ioredis Cluster created
   * with `shardedSubscribers: true` and the server is Redis 7 or newer, and classic pub/sub otherwise.
   * `true` insists on it (and fails every command when it is not available); `false` always uses classic
   * pub/sub. Every client of one lock must use the same kind (Redisson on a Redis 7 cluster uses sharded).
   * @default 'auto'
   */
  shardedPubSub?: ShardedPubSubSetting | undefined;
  /** How long `WAIT` may take when the client asks for replica acknowledgements. @default 1000 */
  replicaTimeoutMs?: number | undefined;
}

/** A store on an ioredis client. `createLockClient({ redis })` is shorthand for `createLockClient({ store: redisStore(redis) })`. */
export function redisStore(redis: RedisLike, options: RedisStoreOptions = {}): LockStore {
  const { shardedPubSub = 'auto' } = options;
  if (shardedPubSub !== 'auto' && typeof shardedPubSub !== 'boolean') {
    throw new TypeError(`rxlock: redisStore: option "shardedPubSub" must be 'auto', true or false, got ${JSON.stringify(shardedPubSub)}`);
  }
  if (shardedPubSub === true && !hasShardedSubscribers(redis)) {
    throw new TypeError(`rxlock: redisStore: option "shardedPubSub" is true, but ${SHARDED_PUBSUB_REQUIREMENT}`);
  }
  return { connect: (scheduler) => new RedisConnection(redis, scheduler, { ...options, shardedPubSub }) };
}

const NOSCRIPT = /^NOSCRIPT/;
const MOVED = /^MOVED /;
/** NOSCRIPT, then MOVED once or twice while a slot map settles. */
const MAX_RESENDS = 3;

class RedisConnection implements StoreConnection {
  readonly #redis: RedisLike;
  readonly #scheduler: SchedulerLike;
  readonly #replicaTimeoutMs: number;
  readonly #evalsha: EvalshaSender;
  /** Changes at most once, when the version check finds a server without sharded pub/sub. */
  publishCommand: PublishCommand;

  get subscribersVisible(): boolean {
    return this.publishCommand === 'spublish' || !this.#redis.isCluster;
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
  #epoch = 0;
  readonly #onClose = (): void => {
    this.#epoch++;
  };
  /** Which node served the slot of each subscribed shard channel at the last slot-map refresh. */
  #owners = new Map<number, string>();
  /**
   * The command client fetched the slot map again (a MOVED, a failed node, `slotsRefreshInterval`): shard
   * channels must follow their slots if one of theirs changed owner. Classic channels are not tied to slots.
   */
  readonly #onTopology = (): void => {
    if (this.publishCommand !== 'spublish' || this.#subscriber === undefined) return;
    const slots = (this.#redis as { slots?: readonly (readonly string[] | undefined)[] }).slots;
    const owners = new Map<number, string>();
    let moved = slots === undefined;
    for (const channel of this.#subscriber.channels()) {
      const slot = calculateSlot(channel);
      const owner = slots?.[slot]?.[0] ?? '';
      if (this.#owners.get(slot) !== owner) moved = true;
      owners.set(slot, owner);
    }
    this.#owners = owners;
    if (moved) this.#subscriber.resync();
  };
  readonly #onNodeLost = (): void => {
    this.#epoch++;
    this.#subscriber?.resync();
  };

  constructor(redis: RedisLike, scheduler: SchedulerLike, options: RedisStoreOptions & { shardedPubSub: ShardedPubSubSetting }) {
    this.#redis = redis;
    this.#scheduler = scheduler;
    this.#replicaTimeoutMs = options.replicaTimeoutMs ?? 1_000;
    this.#evalsha = preparedEvalsha(redis) ?? ((sha1, keys, args) => redis.evalsha(sha1, keys.length, ...keys, ...args));
    const shard = options.shardedPubSub !== false && hasShardedSubscribers(redis);
    this.publishCommand = shard ? 'spublish' : 'publish';
    if (shard) this.#detecting = this.#checkServerVersion(options.shardedPubSub === true);
    redis.on('close', this.#onClose);
    if (redis.isCluster) {
      redis.on('refresh', this.#onTopology);
      redis.on('-node', this.#onNodeLost);
    }
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
    if (this.#unsupported !== undefined || this.#redis.status === 'end') {
      const error = this.#unsupported ?? new StoreError('closed', 'the ioredis client is closed (quit or disconnect was called)', false);
      // Replies never arrive inside the caller's stack.
      void Promise.resolve().then(() => observer.error(error));
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
      this.#redis.eval(script.lua, keys.length, ...keys, ...args).then(
        (reply) => {
          this.#loaded.add(script.sha1);
          deliver(script, reply, observer);
        },
        (error: unknown) => observer.error(classifyRedisError(error)),
      );
      return;
    }
    // The hot path: one promise per command, no async function.
    this.#evalsha(script.sha1, keys, args).then(
      (reply) => deliver(script, reply, observer),
      (error: unknown) => {
        // The script cache was flushed (SCRIPT FLUSH, restart, failover): send the body once.
        if (!(error instanceof Error) || !NOSCRIPT.test(error.message)) {
          observer.error(classifyRedisError(error));
          return;
        }
        this.#redis.eval(script.lua, keys.length, ...keys, ...args).then(
          (reply) => deliver(script, reply, observer),
          (retryError: unknown) => observer.error(classifyRedisError(retryError)),
        );
      },
    );
  }

  async #runWithWait(
    script: Script<unknown>,
    keys: readonly string[],
    args: readonly (string | number)[],
    replicas: number,
    timeoutMs: number,
  ): Promise<unknown> {
    const send = async (useBody: boolean) => {
      const pipeline = this.#redis.pipeline();
      if (useBody) pipeline.eval(script.lua, keys.length, ...keys, ...args);
      else pipeline.evalsha(script.sha1, keys.length, ...keys, ...args);
      return (await pipeline.wait(replicas, timeoutMs).exec()) ?? [];
    };
    // A NOSCRIPT in the pipeline would still make the WAIT behind it block: send the body until this script is known loaded.
    let results = await send(!this.#loaded.has(script.sha1));
    for (let resends = 0; resends < MAX_RESENDS; resends++) {
      const scriptError = results[0]?.[0];
      if (!(scriptError instanceof Error)) break;
      if (NOSCRIPT.test(scriptError.message)) {
        this.#loaded.delete(script.sha1);
        results = await send(true);
      } else if (MOVED.test(scriptError.message)) {
        // ioredis follows MOVED for a lone command, but not in a pipeline whose WAIT succeeded: the script did not
        // run, so send it where it belongs now. Anything else (ASK, TRYAGAIN, CLUSTERDOWN) goes back to the engine
        // as a transient failure, so that no old attempt outlives the engine's timeout and runs after its compensation.
        await this.#refreshSlots();
        results = await send(!this.#loaded.has(script.sha1));
      } else {
        break;
      }
    }
    const [[scriptError, reply] = [null, null], [waitError, acknowledged] = [null, 0]] = results;
    if (scriptError !== null) throw scriptError;
    this.#loaded.add(script.sha1);
    if (waitError !== null) throw waitError;
    if (Number(acknowledged) === 0) {
      throw new StoreError('no-replicas', `no replica acknowledged ${script.name} within ${timeoutMs} ms (asked for ${replicas})`, true);
    }
    return reply;
  }

  #refreshSlots(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#redis.refreshSlotsCache === undefined) resolve();
      else this.#redis.refreshSlotsCache(() => resolve());
    });
  }

  listen(channel: string): Observable<ChannelEvent> {
    return new Observable<ChannelEvent>((subscriber) => {
      let inner: { unsubscribe(): void } | undefined;
      let active = true;
      const start = (): void => {
        if (active) inner = this.#subscriberOf().listen(channel).subscribe(subscriber);
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
    return this.#redis.isCluster ? calculateSlot(key) : 0;
  }

  async evictionPolicy(): Promise<string | undefined> {
    const info = await this.#redis.info('memory');
    return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  }

  async close(): Promise<void> {
    this.#redis.off('close', this.#onClose);
    this.#redis.off('refresh', this.#onTopology);
    this.#redis.off('-node', this.#onNodeLost);
    await this.#subscriber?.close();
  }

  #subscriberOf(): Subscriber {
    this.#subscriber ??= new Subscriber(() => this.#openSubscriber(), this.publishCommand === 'spublish', this.#scheduler);
    return this.#subscriber;
  }

  /**
   * The pub/sub connection: a duplicate of the client. A standalone one is opened without ioredis's own
   * resubscription after a reconnect, whose commands nobody awaits: closed before their replies came, they
   * were rejected unhandled, which ends a Node process by default (ioredis 5.11 and 6.0; ioredis#2187).
   * `Subscriber` subscribes every channel again on each reconnect anyway, and handles every reply.
   */
  #openSubscriber(): SubscriberLike {
    const redis = this.#redis;
    if (redis.isCluster) return redis.duplicate();
    // RedisLike declares duplicate() without arguments, so that a Cluster (whose first is its startup nodes) fits.
    return (redis.duplicate as (override: { autoResubscribe: boolean }) => SubscriberLike).call(redis, { autoResubscribe: false });
  }

  /** Sharded pub/sub needs Redis 7; on an older server fall back to classic pub/sub, or fail when it was insisted on. */
  async #checkServerVersion(insist: boolean): Promise<void> {
    try {
      const major = await serverMajorVersion(this.#redis);
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
