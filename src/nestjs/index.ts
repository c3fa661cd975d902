/**
 * rxlock in NestJS: {@link RxlockModule} provides the client, {@link WithLock} runs a method under a lock,
 * {@link OnLeader} runs a method on one instance only, and {@link LockInterceptor} with {@link LockKey} holds a
 * lock while an HTTP handler runs. Needs `@nestjs/common`, `@nestjs/core` and `reflect-metadata`, optional peer
 * dependencies of rxlock.
 *
 * @module rxlock/nestjs
 */
// Module
export { RxlockModule, type RxlockModuleAsyncOptions, type RxlockModuleExtras } from './RxlockModule.js';
export type { RxlockModuleOptions, RxlockModuleSettings, RxlockClientOption, ModuleSettings } from './RxlockModuleOptions.js';
export { RxlockRuntime } from './RxlockRuntime.js';
export type { LockRuntime } from './LockRuntime.js';
export { LOCK_CLIENT, InjectLockClient } from './tokens.js';

// Locked methods
export {
  WithLock,
  type WithLockOptions,
  type WithMultiLockOptions,
  type WithLockReturns,
  type LockNameOf,
  type LockNamesOf,
  type LockableMethod,
  type LockedMethodDecorator,
} from './WithLock.js';
export type {
  LockKind,
  LockKindOptions,
  SingleLockKindOptions,
  MutexKindOptions,
  ReadWriteKindOptions,
  SemaphoreKindOptions,
  LeasedSemaphoreKindOptions,
  MultiKindOptions,
} from './lockKinds.js';
export { currentLease } from './currentLease.js';

// Leader-only work
export { OnLeader, type OnLeaderOptions, type LeaderMethodDecorator } from './OnLeader.js';

// HTTP
export { LockInterceptor } from './LockInterceptor.js';
export { LockKey, LOCK_KEY_METADATA, type LockKeyMetadata, type RequestLockName, type RequestLockNames } from './LockKey.js';
export { httpExceptionFor, type LockErrorBody } from './httpErrors.js';
