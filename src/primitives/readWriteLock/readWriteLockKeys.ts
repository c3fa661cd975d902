import { prefixed } from '../../store/keys.js';

/** Every key and channel of one read-write lock, all in the lock hash's cluster slot (Redisson's layout plus one of ours). */
export interface ReadWriteLockKeys {
  /** HASH `mode` → `read`/`write`, `<clientId>:<owner>` → read holds, `<clientId>:<owner>:write` → write holds, with PEXPIRE. Redisson's. */
  readonly lock: string;
  /** Redisson's `redisson_rwlock:{name}`: `0` after the last read unlock (wakes one), `1` after a write unlock (wakes all). */
  readonly channel: string;
  /** HASH of the hold ids of reentrant owners, so a re-sent acquire or release counts once. Ours. */
  readonly holds: string;
  /** `{name}`: every reader's hold `k` has a STRING `{name}:<field>:rwlock_timeout:<k>` with its own TTL. Redisson's. */
  readonly timeoutBase: string;
}

export function readWriteLockKeys(fullName: string): ReadWriteLockKeys {
  return {
    lock: fullName,
    channel: prefixed('redisson_rwlock', fullName),
    holds: prefixed('rxlock_holds', fullName),
    timeoutBase: fullName.includes('{') ? fullName : `{${fullName}}`,
  };
}

/** The prefix of one reader's timeout keys: `{name}:<field>:rwlock_timeout` (hold `k` adds `:<k>`), as Redisson's `getReadWriteTimeoutNamePrefix`. */
export function readTimeoutPrefix(keys: ReadWriteLockKeys, field: string): string {
  return `${keys.timeoutBase}:${field}:rwlock_timeout`;
}

/** The writer's field of an owner: its read field plus `:write`, as Redisson's `RedissonWriteLock.getLockName`. */
export function writeFieldOf(readField: string): string {
  return `${readField}:write`;
}
