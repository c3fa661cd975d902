import { prefixed } from '../../store/keys.js';

/** Every key and channel of one countdown latch (Redisson's layout plus one of ours). */
export interface LatchKeys {
  /** STRING: the count; deleted when it reaches zero. Redisson's RCountDownLatch key. */
  readonly count: string;
  /**
   * Redisson's `redisson_countdownlatch__channel__{name}`: `0` when the count reaches zero, `1` when a new count
   * is set or the latch is deleted. Redisson adds the braces even to a name with a hash tag of its own, which
   * puts the channel in another cluster slot; rxlock then leaves them out (see `latchChannel`).
   */
  readonly channel: string;
  /**
   * Redisson's own channel where it differs from `channel` (a name with a hash tag of its own), else undefined.
   * Outside the name's slot, so it is published on only with classic PUBLISH (passed as an argument, not a
   * key): that way Redisson's awaiters of a tagged latch hear rxlock open it.
   */
  readonly redissonChannel: string | undefined;
  /** ZSET of the last 5 minutes' `trySetCount` and `countDown` op ids and replies (see `recallOp`), so a re-sent one counts once; expires by itself. Ours. */
  readonly ops: string;
}

/** The latch's channel, in the count's cluster slot. */
export function latchChannel(fullName: string): string {
  return fullName.includes('{') ? `${LATCH_CHANNEL_PREFIX}${fullName}` : redissonLatchChannel(fullName);
}

const LATCH_CHANNEL_PREFIX = 'redisson_countdownlatch__channel__';

/** Redisson's latch channel: the whole name in braces, whether it has a hash tag of its own or not. */
function redissonLatchChannel(fullName: string): string {
  return `${LATCH_CHANNEL_PREFIX}{${fullName}}`;
}

export function latchKeys(fullName: string): LatchKeys {
  return {
    count: fullName,
    channel: latchChannel(fullName),
    redissonChannel: fullName.includes('{') ? redissonLatchChannel(fullName) : undefined,
    ops: prefixed('rxlock_ops', fullName),
  };
}

/** The latch scripts' last arguments: the publish command, then Redisson's own channel where it differs and classic PUBLISH can reach it. */
export function latchPublishArgs(keys: LatchKeys, publish: string): string[] {
  return keys.redissonChannel !== undefined && publish === 'publish' ? [publish, keys.redissonChannel] : [publish];
}
