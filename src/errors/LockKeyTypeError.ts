import { LockError } from './LockError.js';

/** The Redis key holds a value of another type (or another primitive's layout). The key was left untouched. */
export class LockKeyTypeError extends LockError {
  readonly key: string;
  readonly actualType: string;

  constructor(lockName: string, key: string, actualType: string) {
    super(lockName, `rxlock: key "${key}" of "${lockName}" holds a ${actualType}, not what this primitive stores; left untouched`);
    this.key = key;
    this.actualType = actualType;
  }
}
