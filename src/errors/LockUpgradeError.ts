import { LockError } from './LockError.js';

/** The owner holds the read lock and asked for the write lock: waiting would deadlock, so it fails at once. */
export class LockUpgradeError extends LockError {
  /** The owner id that holds the read lock and asked for the write lock. */
  readonly owner: string;

  /** rxlock raises it; tests of code that handles it may build one too. */
  constructor(lockName: string, owner: string) {
    super(lockName, `rxlock: ${owner} holds the read lock of "${lockName}" and cannot upgrade to write (release the read lock first)`);
    this.owner = owner;
  }
}
