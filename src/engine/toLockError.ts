import { LockBackendError } from '../errors/LockBackendError.js';
import { LockKeyTypeError } from '../errors/LockKeyTypeError.js';
import { LockUpgradeError } from '../errors/LockUpgradeError.js';
import { LockReentryError } from '../errors/LockReentryError.js';
import { StoreError } from '../store/StoreError.js';
import { wrongTypeOf } from '../store/wrongType.js';

/** Turns what the store raised into the public error for this lock name and owner. */
export function toLockError(error: unknown, name: string, owner: string): Error {
  if (!(error instanceof StoreError)) return error instanceof Error ? error : new Error(String(error));
  switch (error.code) {
    case 'wrongtype': {
      const { key, type } = wrongTypeOf(error.message, name);
      return new LockKeyTypeError(name, key, type);
    }
    case 'upgrade':
      return new LockUpgradeError(name, owner);
    case 'reentry':
      return new LockReentryError(name, owner);
    default:
      return new LockBackendError(name, error.code, error.message, { cause: error });
  }
}

/** Whether trying the same command again later may succeed. */
export function isTransient(error: unknown): boolean {
  return error instanceof StoreError && (error.code === 'unavailable' || error.code === 'timeout' || error.code === 'busy');
}

/** Whether the command may have run although no reply says so. */
export function outcomeUnknown(error: unknown): boolean {
  return error instanceof StoreError && error.outcomeUnknown;
}
