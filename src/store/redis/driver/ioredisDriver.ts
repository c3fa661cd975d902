import { preparedEvalsha, type EvalshaSender } from '../preparedEvalsha.js';
import type { IoRedisLike, PipelineLike, SubscriberLike } from '../RedisLike.js';
import type { DriverHooks, PipelineResult, RedisDriver, WaitCommand } from './RedisDriver.js';

/** The driver for an ioredis client (`Redis` or `Cluster`, ioredis 5 or 6) or an iovalkey one, which has the same shape. */
export class IoredisDriver implements RedisDriver {
  readonly #redis: IoRedisLike;
  readonly #evalsha: EvalshaSender;

  constructor(redis: IoRedisLike) {
    this.#redis = redis;
    this.#evalsha = preparedEvalsha(redis) ?? ((sha1, keys, args) => redis.evalsha(sha1, keys.length, ...keys, ...args));
  }

  get description(): string {
    return this.#redis.isCluster ? 'the ioredis Cluster' : 'the ioredis client';
  }

  get isCluster(): boolean {
    return this.#redis.isCluster;
  }

  /** Only a Cluster created with `shardedSubscribers: true` keeps one subscriber per shard and follows slot moves. */
  get shardedSubscribers(): boolean {
    if (!this.#redis.isCluster) return false;
    const options = this.#redis.options as { shardedSubscribers?: unknown } | undefined;
    return options?.shardedSubscribers === true;
  }

  unusable(): string | undefined {
    if (this.#redis.status !== 'end') return undefined;
    // ioredis ends a connection the same way whether its owner closed it or its retry strategy gave up; only the
    // latter asked the strategy (ioredis counts those attempts from the last connect).
    const attempts = (this.#redis as { retryAttempts?: unknown }).retryAttempts;
    if (typeof attempts === 'number' && attempts > 0) {
      return `${this.description} gave up reconnecting (its ${this.#redis.isCluster ? 'clusterRetryStrategy' : 'retryStrategy'} returned no delay)`;
    }
    return `${this.description} is closed (quit or disconnect was called)`;
  }

  evalsha(sha1: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#evalsha(sha1, keys, args);
  }

  eval(lua: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#redis.eval(lua, keys.length, ...keys, ...args);
  }

  async scriptThenWait(
    script: { readonly lua: string; readonly sha1: string },
    useBody: boolean,
    keys: readonly string[],
    args: readonly (string | number)[],
    wait: WaitCommand,
  ): Promise<readonly [PipelineResult, PipelineResult]> {
    // A Cluster sends a pipeline whole to the node of its first key.
    const pipeline = this.#redis.pipeline();
    if (useBody) pipeline.eval(script.lua, keys.length, ...keys, ...args);
    else pipeline.evalsha(script.sha1, keys.length, ...keys, ...args);
    if (wait.command === 'wait') pipeline.wait(wait.replicas, wait.timeoutMs);
    else waitaof(pipeline, wait);
    const results = (await pipeline.exec()) ?? [];
    return [results[0] ?? [null, null], results[1] ?? [null, null]];
  }

  info(section: string): Promise<string> {
    // A wrapper without info() cannot say which server it is on, now or later: an answer that will not change, as an error reply is.
    if (typeof this.#redis.info !== 'function') return Promise.reject(Object.assign(new Error('the client has no info()'), { name: 'ReplyError' }));
    return this.#redis.info(section);
  }

  refreshSlots(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#redis.refreshSlotsCache === undefined) resolve();
      else this.#redis.refreshSlotsCache(() => resolve());
    });
  }

  slotOwner(slot: number): string | undefined {
    const slots = (this.#redis as { slots?: readonly (readonly string[] | undefined)[] }).slots;
    return slots?.[slot]?.[0];
  }

  isReplyError(error: unknown): boolean {
    return (error as { name?: unknown } | null)?.name === 'ReplyError';
  }

  /** ioredis sends the commands of a dropped connection again once reconnected (`autoResendUnfulfilledCommands`). */
  droppedInFlight(_error: unknown): boolean {
    return false;
  }

  watch(hooks: DriverHooks): () => void {
    const redis = this.#redis;
    const onClose = (): void => hooks.connectionLost();
    const onEnd = (): void => hooks.ended();
    const onRefresh = (): void => hooks.topologyChanged();
    const onNodeLost = (): void => hooks.nodeLost();
    redis.on('close', onClose);
    redis.on('end', onEnd);
    if (redis.isCluster) {
      redis.on('refresh', onRefresh);
      redis.on('-node', onNodeLost);
    }
    return () => {
      redis.off('close', onClose);
      redis.off('end', onEnd);
      redis.off('refresh', onRefresh);
      redis.off('-node', onNodeLost);
    };
  }

  /**
   * A duplicate of the client. A standalone one is opened without ioredis's own resubscription after a
   * reconnect, whose commands nobody awaits: closed before their replies came, they were rejected unhandled,
   * which ends a Node process by default (ioredis 5.11 and 6.0; ioredis#2187). `Subscriber` subscribes every
   * channel again on each reconnect anyway, and handles every reply.
   */
  openSubscriber(): SubscriberLike {
    const redis = this.#redis;
    if (redis.isCluster) return redis.duplicate();
    // IoRedisLike declares duplicate() without arguments, so that a Cluster (whose first is its startup nodes) fits.
    return (redis.duplicate as (override: { autoResubscribe: boolean }) => SubscriberLike).call(redis, { autoResubscribe: false });
  }
}

/** WAITAOF through the pipeline's generic `call` (ioredis has no method of that name). */
function waitaof(pipeline: PipelineLike, wait: Extract<WaitCommand, { command: 'waitaof' }>): void {
  if (pipeline.call === undefined) throw new TypeError('rxlock: the ioredis pipeline has no call() to send WAITAOF with');
  pipeline.call('waitaof', wait.local, wait.replicas, wait.timeoutMs);
}
