import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { catchError, defer, throwError, type Observable } from 'rxjs';
import { httpExceptionFor } from './httpErrors.js';
import { checkLockName } from './lockKinds.js';
import { LOCK_KEY_METADATA, type LockKeyMetadata } from './LockKey.js';
import { RxlockRuntime } from './RxlockRuntime.js';

/**
 * Holds the lock a handler's `@LockKey` names while the handler's Observable runs (Nest turns a handler's
 * promise or value into one), so that the lock is taken before the handler is called and released once its
 * response is produced; an aborted request tears the handler's Observable down before the release. Handlers
 * without `@LockKey` pass through. Over HTTP, rxlock's errors become HTTP errors (`httpExceptionFor`):
 * `LockTimeoutError` → 409, `LockLostError` → 503. Use it with `@UseInterceptors(LockInterceptor)` or as an
 * `APP_INTERCEPTOR`.
 */
export class LockInterceptor implements NestInterceptor {
  readonly #reflector: Reflector;
  readonly #runtime: RxlockRuntime;

  /** Created by Nest's injector, with the module's `RxlockRuntime`. */
  constructor(reflector: Reflector, runtime: RxlockRuntime) {
    this.#reflector = reflector;
    this.#runtime = runtime;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const key = this.#reflector.getAllAndOverride<LockKeyMetadata | undefined>(LOCK_KEY_METADATA, [context.getHandler(), context.getClass()]);
    if (key === undefined) return next.handle();
    const locked = defer(() => {
      const name = checkLockName(
        key.where,
        key.kind,
        typeof key.name === 'function' ? (key.name as (context: ExecutionContext) => unknown)(context) : key.name,
      );
      return this.#runtime.locked$(key.options, name, () => next.handle());
    });
    if (context.getType() !== 'http') return locked;
    return locked.pipe(catchError((error: unknown) => throwError(() => httpExceptionFor(error) ?? error)));
  }
}

Injectable()(LockInterceptor);
Inject(Reflector)(LockInterceptor, undefined, 0);
Inject(RxlockRuntime)(LockInterceptor, undefined, 1);
