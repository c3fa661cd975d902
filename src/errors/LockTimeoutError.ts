import { LockError } from './LockError.js';

/** The lock could not be had within `waitMs`. Nothing is held when this is raised. */
export class LockTimeoutError extends LockError {
  readonly waitMs: number;

  constructor(lockName: string, waitMs: number) {
    super(lockName, `rxlock: could not acquire "${lockName}" within ${waitMs} ms`);
    this.waitMs = waitMs;
  }
}
