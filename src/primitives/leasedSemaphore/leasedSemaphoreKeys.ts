import { prefixed, suffixed } from '../../store/keys.js';

/** Every key and channel of one semaphore with expiring permits, all in the count's cluster slot (Redisson's layout plus one of ours). */
export interface LeasedSemaphoreKeys {
  /** STRING: the permits nobody holds. Redisson's RPermitExpirableSemaphore key. */
  readonly count: string;
  /** ZSET permit id (16 bytes) → the server time in ms at which it expires. Redisson's `{name}:timeout`. */
  readonly timeouts: string;
  /** Redisson's `redisson_sc:{name}`: the new count whenever permits come back (released, expired, added). */
  readonly channel: string;
  /** ZSET of the last 5 minutes' `trySetPermits` and `addPermits` op ids and replies (see `recallOp`), so a re-sent one applies once; expires by itself. Ours. */
  readonly ops: string;
}

export function leasedSemaphoreKeys(fullName: string): LeasedSemaphoreKeys {
  return {
    count: fullName,
    timeouts: suffixed(fullName, 'timeout'),
    channel: prefixed('redisson_sc', fullName),
    ops: prefixed('rxlock_ops', fullName),
  };
}
