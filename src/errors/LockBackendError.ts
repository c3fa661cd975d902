import { LockError } from './LockError.js';

/**
 * What the store said, in words the caller can act on:
 * - `oom`: Redis is out of memory (maxmemory with noeviction); nothing was written.
 * - `busy`: another script is running too long (BUSY).
 * - `unavailable`: the connection is down (it may come back: ioredis reconnects).
 * - `closed`: the Redis client was closed by its owner, gave up reconnecting, or was never connected; the
 *   message says which.
 * - `timeout`: no reply within `commandTimeoutMs`; the outcome is unknown and was compensated.
 * - `no-replicas`: no replica acknowledged the write within the replica timeout.
 * - `other`: anything else; see `cause`.
 */
export type LockBackendErrorCode = 'oom' | 'busy' | 'unavailable' | 'closed' | 'timeout' | 'no-replicas' | 'other';

/** The store (Redis) failed an operation. `cause` holds the original error. */
export class LockBackendError extends LockError {
  /** What failed, in words the caller can act on: see {@link LockBackendErrorCode}. */
  readonly code: LockBackendErrorCode;

  /** `detail` completes the message; `options.cause`: the store's or the Redis client's own error. */
  constructor(lockName: string, code: LockBackendErrorCode, detail: string, options?: ErrorOptions) {
    super(lockName, `rxlock: Redis failed on "${lockName}" (${code}): ${detail}`, options);
    this.code = code;
  }

  /** Whether retrying the same call later can succeed without anything else changing. */
  get transient(): boolean {
    return this.code === 'unavailable' || this.code === 'timeout' || this.code === 'busy';
  }
}
