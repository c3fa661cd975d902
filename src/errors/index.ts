export { LockError } from './LockError.js';
export { LockTimeoutError } from './LockTimeoutError.js';
export { LockLostError, type LockLostReason, type LockLostErrorOptions } from './LockLostError.js';
export { LockKeyTypeError } from './LockKeyTypeError.js';
export { LockUpgradeError } from './LockUpgradeError.js';
export { LockReentryError } from './LockReentryError.js';
export { ClientClosedError } from './ClientClosedError.js';
export { LockBackendError, type LockBackendErrorCode } from './LockBackendError.js';
