import { LockError } from './LockError.js';

/** The Redis key holds a value of another type (or another primitive's layout). The key was left untouched. */
export class LockKeyTypeError extends LockError {
  /** The Redis key that holds something else (the lock's own key, or one of its companion keys). */
  readonly key: string;
  /** What that key holds: a Redis type (`string`, `list`, ...) or the layout of another primitive. */
  readonly actualType: string;

  /** rxlock raises it; tests of code that handles it may build one too. */
  constructor(lockName: string, key: string, actualType: string) {
    super(lockName, `rxlock: key "${key}" of "${lockName}" holds a ${actualType}, not what this primitive stores; left untouched`);
    this.key = key;
    this.actualType = actualType;
  }
}
