import { prefixed } from '../../store/keys.js';

/** Every key and channel of one group lock, all in the group hash's cluster slot (Redisson's layout plus one of ours). */
export interface GroupLockKeys {
  /**
   * HASH of Redisson's RedissonFasterMultiLock, for every locked value (its field, see `valueField`): `<value>` →
   * `<clientId>:<owner>`, `<value>:<clientId>:<owner>:expire_time` → when that hold ends (server time in ms) and
   * `<value>:<clientId>:<owner>:lock_count` → its reentrant holds; the hash has a PEXPIRE too.
   */
  readonly lock: string;
  /** Redisson's `redisson_lock__channel:{group}`, where releases announce that values were freed. */
  readonly channel: string;
  /** HASH of the hold ids of reentrant owners, so a re-sent acquire or release counts once. Ours. */
  readonly holds: string;
}

/** The keys of the group `fullName` (the name with the client's key prefix). */
export function groupLockKeys(fullName: string): GroupLockKeys {
  return {
    lock: fullName,
    channel: prefixed('redisson_lock__channel', fullName),
    holds: prefixed('rxlock_holds', fullName),
  };
}

/** The field of one owner's expiry on one value: `<value>:<clientId>:<owner>:expire_time`, as Redisson names it. */
export function expiryFieldOf(value: string, lockName: string): string {
  return `${value}:${lockName}:expire_time`;
}

/** The field of one owner's hold count on one value: `<value>:<clientId>:<owner>:lock_count`, as Redisson names it. */
export function countFieldOf(value: string, lockName: string): string {
  return `${value}:${lockName}:lock_count`;
}
