import { LockError } from './LockError.js';

/** The owner holds the read lock and asked for the write lock: waiting would deadlock, so it fails at once. */
export class LockUpgradeError extends LockError {
  readonly owner: string;

  constructor(lockName: string, owner: string) {
    super(lockName, `rxlock: ${owner} holds the read lock of "${lockName}" and cannot upgrade to write (release the read lock first)`);
    this.owner = owner;
  }
}
