import { prefixed } from '../../store/keys.js';

/** Every key and channel of one lock, all in the lock hash's cluster slot (Redisson's layout plus two of ours). */
export interface LockKeys {
  /** HASH `<clientId>:<owner>` → hold count, with PEXPIRE. Redisson's RLock key. */
  readonly lock: string;
  /**
   * Redisson's unlock channel; `0` is published on the final unlock. rxlock waiters also listen on
   * `<channel>:<clientId>` (one per client and name, see `handOffChannel`) for hand-offs to them.
   */
  readonly channel: string;
  /** HASH of the hold ids of reentrant owners, so a re-sent acquire or release counts once. Ours. */
  readonly holds: string;
  /** STRING `<member>|<until ms>` set by an unlock for the longest-waiting waiter it could not hand the lock to directly: the lock is reserved for it a moment. Ours. */
  readonly handoff: string;
  /** ZSET of rxlock waiters (`waiterMember` → server time in µs they started waiting), so an unlock can hand over in arrival order. Ours. */
  readonly waiters: string;
  /** STRING counter of fencing tokens. Redisson's fenced lock key. */
  readonly token: string;
  /** The acquire script's keys for an owner that never re-enters, without fencing (the common case). */
  readonly acquireKeys: readonly string[];
  /** The release and leave scripts' keys: lock, channel, waiters, handoff, holds, token (a hand-off may write the last two). */
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
  const holds = prefixed('rxlock_holds', fullName);
  const token = prefixed('redisson_lock_token', fullName);
  return {
    lock: fullName,
    channel,
    holds,
    handoff,
    waiters,
    token,
    // Frozen: the Redis store encodes a frozen keys array once (see `preparedEvalsha`).
    acquireKeys: Object.freeze([fullName, waiters, handoff]),
    releaseKeys: Object.freeze([fullName, channel, waiters, handoff, holds, token]),
  };
}

/** Where the unlocks of `keys` hand the lock to waiters of client `clientId` (in the lock's cluster slot). */
export function handOffChannel(keys: LockKeys, clientId: string): string {
  return `${keys.channel}:${clientId}`;
}
