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

/** Options of a `LockLostError`: what the work that ran under the lost lease ended with, if it ended. */
export interface LockLostErrorOptions extends ErrorOptions {
  /**
   * The work's own error, when the work failed while its lease was lost.
   * @default undefined: the work did not fail
   */
  cause?: unknown;
  /**
   * The work's result (for a stream: its last value), when the work finished while its lease was lost.
   * @default undefined: the work did not finish
   */
  result?: unknown;
}

/**
 * The lease can no longer be trusted: the stream errors with it, `lease.signal` aborts with it, and every
 * promise or completing form (`withLock`, `withLease`, a handle's `release()`) rejects with it, even when
 * the work itself finished: the work's outcome is then on `cause` (its error) or `result` (its value).
 */
export class LockLostError extends LockError {
  /** The owner id of the lost hold (the `owner` option, or the one rxlock generated for the subscription). */
  readonly owner: string;
  /** Why the lease can no longer be trusted: see {@link LockLostReason}. */
  readonly reason: LockLostReason;
  /** The work's result when it finished under a lease that was lost meanwhile; undefined otherwise. */
  readonly result: unknown;

  /** The message names the lock, the owner and the reason in words; `options`: what the work ended with, if it ended. */
  constructor(lockName: string, owner: string, reason: LockLostReason, options?: LockLostErrorOptions) {
    super(lockName, `rxlock: lost "${lockName}" held by ${owner}: ${describe(reason)}`, options);
    this.owner = owner;
    this.reason = reason;
    this.result = options?.result;
  }

  /** This loss, carrying what the work ended with. */
  withOutcome(outcome: LockLostErrorOptions): LockLostError {
    return new LockLostError(this.lockName, this.owner, this.reason, outcome);
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
