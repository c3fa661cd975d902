import { prefixed } from '../../store/keys.js';

/** Every key and channel of one lock, all in the lock hash's cluster slot (Redisson's layout plus two of ours). */
export interface LockKeys {
  /** HASH `<clientId>:<owner>` → hold count, with PEXPIRE. Redisson's RLock key. */
  readonly lock: string;
  /** Redisson's unlock channel; `0` is published on the final unlock. */
  readonly channel: string;
  /** HASH of the hold ids of reentrant owners, so a re-sent acquire or release counts once. Ours. */
  readonly holds: string;
  /** STRING `<field>|<until ms>` set by an unlock for the longest-waiting waiter: the lock is reserved for it a moment. Ours. */
  readonly handoff: string;
  /** ZSET of rxlock waiters (field → server time they started waiting), so an unlock can hand over in arrival order. Ours. */
  readonly waiters: string;
  /** STRING counter of fencing tokens. Redisson's fenced lock key. */
  readonly token: string;
  /** The acquire script's keys for an owner that never re-enters, without fencing (the common case). */
  readonly acquireKeys: readonly string[];
  /** The release script's keys for an owner that never re-enters. */
  readonly releaseKeys: readonly string[];
}

const CACHE_SIZE = 1_000;
const cache = new Map<string, LockKeys>();

/** The keys of `fullName`; recently used names come from a small cache, as building them is most of an acquire's allocations. */
export function lockKeys(fullName: string): LockKeys {
  let keys = cache.get(fullName);
  if (keys === undefined) {
    if (cache.size >= CACHE_SIZE) cache.clear();
    keys = buildLockKeys(fullName);
    cache.set(fullName, keys);
  }
  return keys;
}

function buildLockKeys(fullName: string): LockKeys {
  const channel = prefixed('redisson_lock__channel', fullName);
  const handoff = prefixed('rxlock_handoff', fullName);
  const waiters = prefixed('rxlock_waiters', fullName);
  return {
    lock: fullName,
    channel,
    holds: prefixed('rxlock_holds', fullName),
    handoff,
    waiters,
    token: prefixed('redisson_lock_token', fullName),
    acquireKeys: [fullName, waiters, handoff],
    releaseKeys: [fullName, channel, waiters, handoff],
  };
}
