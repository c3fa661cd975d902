export { LockError } from './LockError.js';
export { LockTimeoutError } from './LockTimeoutError.js';
export { LockLostError, type LockLostReason } from './LockLostError.js';
export { NotLockOwnerError } from './NotLockOwnerError.js';
export { LockKeyTypeError } from './LockKeyTypeError.js';
export { LockUpgradeError } from './LockUpgradeError.js';
export { ClientClosedError } from './ClientClosedError.js';
export { LockBackendError, type LockBackendErrorCode } from './LockBackendError.js';
