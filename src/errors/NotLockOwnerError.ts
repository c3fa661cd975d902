import { LockError } from './LockError.js';

/** An explicit release of a lock this owner does not hold (expired, force-unlocked, never ours). */
export class NotLockOwnerError extends LockError {
  readonly owner: string;

  constructor(lockName: string, owner: string) {
    super(lockName, `rxlock: "${lockName}" is not held by ${owner}`);
    this.owner = owner;
  }
}
