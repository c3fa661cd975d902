import { LockError } from './LockError.js';

/**
 * The owner already holds a lock taken with `reentrant: false` (Redisson's non-reentrant lock and fair lock)
 * and asked for it again: a reentrant lock would count a second hold, this one refuses at once rather than
 * wait for itself. Nothing changed in Redis; the first hold is untouched.
 */
export class LockReentryError extends LockError {
  /** The owner id that already holds the lock. */
  readonly owner: string;

  /** rxlock raises it; tests of code that handles it may build one too. */
  constructor(lockName: string, owner: string) {
    super(lockName, `rxlock: "${lockName}" is non-reentrant and already held by ${owner}`);
    this.owner = owner;
  }
}
