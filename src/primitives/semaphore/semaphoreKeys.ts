import { prefixed } from '../../store/keys.js';

/** Every key and channel of one semaphore, all in the count's cluster slot (Redisson's layout plus two of ours). */
export interface SemaphoreKeys {
  /** STRING: the available permits (negative after `addPermits` took more than were free). Redisson's RSemaphore key. */
  readonly count: string;
  /** Redisson's `redisson_sc:{name}`: the new count after every release, `addPermits` and `trySetPermits`. */
  readonly channel: string;
  /** HASH hold id → permits it holds, so a re-sent acquire counts once and a repeated release changes nothing. Ours. */
  readonly holds: string;
  /** ZSET of the last 5 minutes' `trySetPermits` and `addPermits` op ids and replies (see `recallOp`), so a re-sent one applies once; expires by itself. Ours. */
  readonly ops: string;
}

export function semaphoreKeys(fullName: string): SemaphoreKeys {
  return {
    count: fullName,
    channel: prefixed('redisson_sc', fullName),
    holds: prefixed('rxlock_holds', fullName),
    ops: prefixed('rxlock_ops', fullName),
  };
}
