import { prefixed } from '../../store/keys.js';
import { lockKeys } from '../lock/lockKeys.js';

/**
 * Every key and channel of one fair lock, all in the lock hash's cluster slot: Redisson's RFairLock layout
 * plus two keys of ours. The order of `list` is the order of the scripts' KEYS.
 */
export interface FairLockKeys {
  /** HASH `<clientId>:<owner>` → hold count, with PEXPIRE. Redisson's lock key, shared with `lock$`. */
  readonly lock: string;
  /** HASH of the hold ids of reentrant owners, so a re-sent acquire or release counts once. Ours, shared with `lock$`. */
  readonly holds: string;
  /** LIST of waiting fields in arrival order. Redisson's `redisson_lock_queue:{name}`. */
  readonly queue: string;
  /** ZSET waiting field → server time (ms) after which it counts as dead. Redisson's `redisson_lock_timeout:{name}`. */
  readonly timeouts: string;
  /**
   * HASH waiting field → `<epoch> <leaseMs> <fencing 0|1>[d] <waitId> <holdId>` (`d`: it takes direct
   * hand-offs; what a release needs to hand the
   * lock to an rxlock waiter directly), or `<epoch>` alone for a waiter of another client (Redisson's); and
   * `grants` → how many heads left the queue with the lock. A waiter's deadline is its `timeouts` score less
   * one share per grant since its epoch (see `fairQueue`). Deleted with the queue's last waiter. Ours.
   */
  readonly waiters: string;
  /** STRING counter of fencing tokens. Redisson's `redisson_lock_token:{name}`. */
  readonly token: string;
  /** Redisson's lock channel; each waiter listens on `<channelPrefix>:<clientId>:<owner>`. */
  readonly channelPrefix: string;
  /** The keys in the scripts' KEYS order. */
  readonly list: readonly string[];
}

const CACHE_SIZE = 1_000;
const cache = new Map<string, FairLockKeys>();

/** The keys of `fullName`; recently used names come from a small cache, as `lockKeys` does. */
export function fairLockKeys(fullName: string): FairLockKeys {
  let keys = cache.get(fullName);
  if (keys === undefined) {
    if (cache.size >= CACHE_SIZE) cache.clear();
    keys = buildFairLockKeys(fullName);
    cache.set(fullName, keys);
  }
  return keys;
}

function buildFairLockKeys(fullName: string): FairLockKeys {
  const base = lockKeys(fullName);
  const keys = {
    lock: base.lock,
    holds: base.holds,
    queue: prefixed('redisson_lock_queue', fullName),
    timeouts: prefixed('redisson_lock_timeout', fullName),
    waiters: prefixed('rxlock_fair_waiters', fullName),
    token: base.token,
    channelPrefix: base.channel,
  };
  return { ...keys, list: [keys.lock, keys.holds, keys.queue, keys.timeouts, keys.waiters, keys.token] };
}

/** The channel a release publishes to when `field` is at the head of the queue. Redisson's per-waiter channel. */
export function waiterChannel(keys: FairLockKeys, field: string): string {
  return `${keys.channelPrefix}:${field}`;
}
