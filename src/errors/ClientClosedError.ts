import { LockError } from './LockError.js';

/** The lock client was closed: nothing more can be acquired through it. */
export class ClientClosedError extends LockError {
  /** `lockName`: the lock the caller was using when it found the client closed. */
  constructor(lockName: string) {
    super(lockName, `rxlock: the lock client is closed (while using "${lockName}")`);
  }
}
