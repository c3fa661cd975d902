import { LockError } from './LockError.js';

/**
 * Why a held lease ended without being released:
 * - `not-held`: a renewal (or release) found that the lock no longer belongs to this owner
 *   (expired, evicted, force-unlocked, Redis restarted without persistence).
 * - `unconfirmed`: no renewal was confirmed before the lease's local deadline
 *   (Redis unreachable or too slow); the lock may still exist but can no longer be trusted.
 * - `expired`: a lease with a fixed `leaseMs` reached its deadline, so Redis is about to expire it.
 * - `closed`: the client was closed while the lease was held.
 */
export type LockLostReason = 'not-held' | 'unconfirmed' | 'expired' | 'closed';

/** The lease can no longer be trusted. The stream errors with it and `lease.signal` aborts with it. */
export class LockLostError extends LockError {
  readonly owner: string;
  readonly reason: LockLostReason;

  constructor(lockName: string, owner: string, reason: LockLostReason, options?: ErrorOptions) {
    super(lockName, `rxlock: lost "${lockName}" held by ${owner}: ${describe(reason)}`, options);
    this.owner = owner;
    this.reason = reason;
  }
}

function describe(reason: LockLostReason): string {
  switch (reason) {
    case 'not-held':
      return 'Redis says it is no longer held by this owner';
    case 'unconfirmed':
      return 'no renewal was confirmed before the local deadline';
    case 'expired':
      return 'its fixed lease ran out';
    case 'closed':
      return 'the client was closed';
  }
}
