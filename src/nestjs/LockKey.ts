import { SetMetadata, type ExecutionContext } from '@nestjs/common';
import { checkLockKindOptions, checkLockName, type LockKind, type LockKindOptions, type MultiKindOptions, type SingleLockKindOptions } from './lockKinds.js';
import { describeMethod } from './methodWrapping.js';

/** The metadata key `@LockKey` stores its lock under, read by `LockInterceptor`. */
export const LOCK_KEY_METADATA = 'rxlock:lockKey';

/** What `@LockKey` stores: the lock a handler runs under. */
export interface LockKeyMetadata {
  /** The lock name, the names of a multi-lock, or a function of the `ExecutionContext` that gives them. */
  readonly name: unknown;
  /** The kind of lock (`options.kind`, `lock` when absent). */
  readonly kind: LockKind;
  /** The options given to `@LockKey`. */
  readonly options: LockKindOptions | undefined;
  /** Where the decorator is, for error messages (`@LockKey on OrdersController.update`). */
  readonly where: string;
}

/** A lock name for a request, or a function of the request's `ExecutionContext` that gives it. */
export type RequestLockName = string | ((context: ExecutionContext) => string);

/** The names of a multi-lock for a request, or a function of the `ExecutionContext` that gives them. */
export type RequestLockNames = readonly string[] | ((context: ExecutionContext) => readonly string[]);

/**
 * Names the lock `LockInterceptor` holds while a handler runs (on a method), or while any handler of a
 * controller runs (on the class; a method's own `@LockKey` wins). The function form reads the request, as
 * `(context) => \`order:${context.switchToHttp().getRequest<Request>().params.id}\``. The options are
 * `@WithLock`'s: `kind`, `waitMs` (`0` answers 409 at once when the lock is taken), `leaseMs`, `permits`.
 */
export function LockKey(names: RequestLockNames, options: MultiKindOptions): ClassDecorator & MethodDecorator;
export function LockKey(name: RequestLockName, options?: SingleLockKindOptions): ClassDecorator & MethodDecorator;
export function LockKey(name: unknown, options?: LockKindOptions): ClassDecorator & MethodDecorator {
  const decorator = (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const where = key === undefined ? `@LockKey on ${(target as { name?: string }).name ?? 'a class'}` : describeMethod('@LockKey', target, key);
    const kind = checkLockKindOptions(where, options);
    if (typeof name !== 'function') checkLockName(where, kind, name);
    const metadata: LockKeyMetadata = { name, kind, options, where };
    SetMetadata(LOCK_KEY_METADATA, metadata)(target, key as string | symbol, descriptor as PropertyDescriptor);
  };
  return decorator;
}
