import { defer, map, Observable } from 'rxjs';
import { acquire, type AttemptReply } from '../../engine/acquisition.js';
import type { WakePolicy } from '../../engine/WakeHub.js';
import type { ClientCore } from '../../engine/ClientCore.js';
import { ClientClosedError } from '../../errors/ClientClosedError.js';
import { callSite } from '../../util/describeValue.js';
import { assertCount, assertName } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { runFor } from '../lock/queries.js';
import { checkWaitOptions } from '../semaphore/checkPermits.js';
import { newOpId } from '../semaphore/opMemory.js';
import { latchKeys, latchPublishArgs, type LatchKeys } from './latchKeys.js';
import { countDownScript, deleteLatchScript, getCountScript, trySetCountScript } from './latchScripts.js';
import { optionKeys } from '../../util/optionKeys.js';

/** Options of `latch(name).await$`. */
export interface LatchAwaitOptions {
  /**
   * How long to wait for the count to reach zero before erroring with `LockTimeoutError`. `0` checks once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /**
   * Cancels the wait when it aborts; the stream errors with `signal.reason`.
   * @default undefined: only unsubscribing cancels
   */
  signal?: AbortSignal | undefined;
}

const AWAIT_OPTION_KEYS = optionKeys<LatchAwaitOptions>({ waitMs: true, signal: true });

/**
 * A countdown latch (Redisson's RCountDownLatch): a count in Redis that clients count down, and that
 * awaiters wait to reach zero. A latch without a count (never set, opened, or deleted) counts as zero.
 */
export interface CountDownLatch {
  /** The name the latch was created under. */
  readonly name: string;
  /**
   * Emits once and completes when the count is zero (at once if it is already); errors with `LockTimeoutError` at `waitMs`.
   *
   * @example
   * await firstValueFrom(client.latch('reindex:shards').await$({ waitMs: 600_000 }));
   */
  await$(options?: LatchAwaitOptions): Observable<void>;
  /**
   * Sets the count to `count` if the latch has none. Resolves true if it did.
   *
   * @example
   * await client.latch('reindex:shards').trySetCount(3);
   */
  trySetCount(count: number): Promise<boolean>;
  /**
   * Counts down by one; at zero the latch opens (its key is deleted). Resolves with the count left.
   *
   * @example
   * const left = await client.latch('reindex:shards').countDown();
   */
  countDown(): Promise<number>;
  /**
   * The count right now (0 when the latch has none).
   *
   * @example
   * const left = await client.latch('reindex:shards').getCount();
   */
  getCount(): Promise<number>;
  /**
   * Deletes the latch, which opens it for awaiters. Resolves true if it had a count.
   *
   * @example
   * await client.latch('reindex:shards').delete(); // lets every awaiter go on
   */
  delete(): Promise<boolean>;
}

/** `latch(name)` as the client exposes it. A bad name throws at once: there is no stream yet to carry it. */
export function latch(core: ClientCore, name: string): CountDownLatch {
  const site = callSite('latch', name);
  assertName(name, site);
  const keys = latchKeys(core.keyPrefix + name);
  const publishing = (): string[] => latchPublishArgs(keys, core.connection.publishCommand);
  return {
    name,
    await$: (options) =>
      defer(() => {
        checkWaitOptions(options, AWAIT_OPTION_KEYS, `${site}.await$`);
        return abortable(awaitZero$(core, name, keys, options?.waitMs), options?.signal);
      }),
    trySetCount: async (count) => {
      assertCount(count, 'count', `${site}.trySetCount`, 1);
      return runFor(core, name, trySetCountScript, [keys.count, keys.channel, keys.ops], [count, newOpId(), ...publishing()]);
    },
    countDown: () => runFor(core, name, countDownScript, [keys.count, keys.channel, keys.ops], [newOpId(), ...publishing()]),
    getCount: () => runFor(core, name, getCountScript, [keys.count], []),
    delete: () => runFor(core, name, deleteLatchScript, [keys.count, keys.channel], publishing()),
  };
}

const OPEN: AttemptReply<undefined> = { granted: true, grant: undefined };
const SHUT: AttemptReply<undefined> = { granted: false, retryInMs: -1 };

/**
 * Every message wakes every local awaiter to read the count again, a `0` too: as Redisson's awaiters do, the
 * count read decides, never the message. A `0` travels on the pub/sub connection and the count on another,
 * so a `0` of the round before may arrive after a new count was set and this awaiter began.
 */
const WAKE_ALL: WakePolicy = () => ({ wake: 'all' });

/** Waits with the engine's acquire loop (nothing is held: there is nothing to compensate). Each attempt reads the count. */
function awaitZero$(core: ClientCore, name: string, keys: LatchKeys, waitMs: number | undefined): Observable<void> {
  return new Observable<void>((subscriber) => {
    if (core.closed) {
      subscriber.error(new ClientClosedError(name));
      return;
    }
    const tracked = core.track({ close: () => subscriber.error(new ClientClosedError(name)) });
    const acquisition = acquire<undefined>(
      {
        core,
        name,
        kind: 'latch',
        owner: core.newOwner(),
        waitMs,
        channel: keys.channel,
        policy: WAKE_ALL,
        attempt: () => core.connection.run(getCountScript, [keys.count], []).pipe(map((count) => (count === 0 ? OPEN : SHUT))),
        compensate: (settled) => settled?.(true),
      },
      {
        granted: () => {
          subscriber.next();
          subscriber.complete();
        },
        failed: (error) => subscriber.error(error),
      },
    );
    return () => {
      core.untrack(tracked);
      acquisition.cancel();
    };
  });
}
