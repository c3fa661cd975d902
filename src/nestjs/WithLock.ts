import { defer, isObservable, lastValueFrom, type Observable } from 'rxjs';
import { describeValue } from '../util/describeValue.js';
import { runWithLease } from './currentLease.js';
import { checkLockKindOptions, checkLockName, type LockKindOptions, type MultiKindOptions, type SingleLockKindOptions } from './lockKinds.js';
import { runtimeOf } from './LockRuntime.js';
import { describeMethod, isAsyncFunction, methodOf, replaceMethod } from './methodWrapping.js';

/** How `@WithLock` treats the method's result, when it cannot tell from the method itself. */
export interface WithLockReturns {
  /**
   * `promise`: the lock is held while the returned promise runs (as `withLock`); `observable`: while the
   * returned Observable is subscribed (as `withLock$`).
   * @default what the method is: `async`, or declared to return a Promise or an Observable (with `emitDecoratorMetadata`)
   */
  returns?: 'promise' | 'observable' | undefined;
}

/** Options of `@WithLock` under a single name: the kind of lock, how to wait, and the result's form. */
export type WithLockOptions = SingleLockKindOptions & WithLockReturns;

/** Options of `@WithLock` with `kind: 'multi'` (the name gives an array). */
export type WithMultiLockOptions = MultiKindOptions & WithLockReturns;

/** A lock name, or a function of the method's arguments that gives it. */
export type LockNameOf<A extends unknown[]> = string | ((...args: A) => string);

/** The names of a multi-lock, or a function of the method's arguments that gives them. */
export type LockNamesOf<A extends unknown[]> = readonly string[] | ((...args: A) => readonly string[]);

/** A method `@WithLock` can decorate: its first parameters are those of the name function, and it returns a Promise or an Observable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LockableMethod<A extends unknown[]> = (...args: [...A, ...any[]]) => PromiseLike<unknown> | Observable<unknown>;

/** The method decorator `@WithLock` returns (TypeScript's `experimentalDecorators`, as NestJS uses). */
export type LockedMethodDecorator<A extends unknown[]> = <M extends LockableMethod<A>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Runs the method while holding a lock. The name (or the function of the method's arguments that gives
 * it) names the lock; `kind` chooses which of the client's locks: `lock` (the default), `fair`, `read`,
 * `write`, `semaphore` or `leasedSemaphore` (with `permits`), or `multi` (the name gives an array).
 *
 * - A method returning a Promise behaves as `withLock`: the lock is taken before the method is called and
 *   released once its promise settled; the result rejects with `LockTimeoutError` if the lock could not be
 *   had within `waitMs`, and with `LockLostError` if it was lost meanwhile (the method's own work keeps
 *   running unless it honours `currentLease().signal`).
 * - A method returning an Observable behaves as `withLock$`: the lock is taken when the result is
 *   subscribed, the method is called then, and the lock is held for the Observable's lifetime; on
 *   unsubscription the work is torn down before the release, and a lost lock errors the stream.
 *
 * The application's `RxlockModule` provides the client: the method works on singleton providers and
 * controllers of an application that imports it. Nested calls of a method under the same lock name wait
 * for the outer call (no implicit re-entry).
 */
export function WithLock<A extends unknown[] = unknown[]>(names: LockNamesOf<A>, options: WithMultiLockOptions): LockedMethodDecorator<A>;
export function WithLock<A extends unknown[] = unknown[]>(name: LockNameOf<A>, options?: WithLockOptions): LockedMethodDecorator<A>;
export function WithLock(
  name: unknown,
  options?: WithLockOptions | WithMultiLockOptions,
): (target: object, key: string | symbol, descriptor: PropertyDescriptor) => void {
  return (target, key, descriptor) => {
    const where = describeMethod('@WithLock', target, key);
    const kind = checkLockKindOptions(where, options, ['returns']);
    if (typeof name !== 'function') checkLockName(where, kind, name);
    const original = methodOf(where, descriptor);
    const returns = resultForm(where, options?.returns, target, key, original);
    const lockOptions = lockOptionsOf(options);
    const nameOf = (args: unknown[]): string | readonly string[] =>
      checkLockName(where, kind, typeof name === 'function' ? (name as (...args: unknown[]) => unknown)(...args) : name);
    const wrapper =
      returns === 'observable'
        ? function (this: unknown, ...args: unknown[]): Observable<unknown> {
            return defer(() =>
              runtimeOf(this, where).locked$(lockOptions, nameOf(args), (lease) =>
                runWithLease(lease, () => {
                  const result = original.apply(this, args);
                  if (!isObservable(result)) throw new TypeError(`rxlock: ${where}: the method returned ${describeValue(result)}, not an Observable`);
                  return result;
                }),
              ),
            );
          }
        : function (this: unknown, ...args: unknown[]): Promise<unknown> {
            return lastValueFrom(
              defer(() =>
                runtimeOf(this, where).locked$(lockOptions, nameOf(args), (lease) => runWithLease(lease, () => Promise.resolve(original.apply(this, args)))),
              ),
              { defaultValue: undefined },
            );
          };
    replaceMethod(descriptor, original, wrapper, { leaders: [] });
  };
}

/** Whether the method gives a Promise or an Observable, decided once, when the decorator is applied. */
function resultForm(where: string, explicit: unknown, target: object, key: string | symbol, method: (...args: unknown[]) => unknown): 'promise' | 'observable' {
  if (explicit !== undefined) {
    if (explicit !== 'promise' && explicit !== 'observable') {
      throw new TypeError(`rxlock: ${where}: option "returns" must be "promise" or "observable", got ${describeValue(explicit)}`);
    }
    return explicit;
  }
  const getMetadata = (Reflect as unknown as { getMetadata?: (key: string, target: object, property: string | symbol) => unknown }).getMetadata;
  const declared = getMetadata?.('design:returntype', target, key);
  if (declared === Promise) return 'promise';
  if (typeof declared === 'function' && isObservable(declared.prototype)) return 'observable';
  if (isAsyncFunction(method)) return 'promise';
  throw new TypeError(
    `rxlock: ${where}: cannot tell whether the method returns a Promise or an Observable: declare it async, declare its return type (with emitDecoratorMetadata), or pass { returns: 'promise' } or { returns: 'observable' }`,
  );
}

/** The lock options without the decorator's own. */
function lockOptionsOf(options: (LockKindOptions & WithLockReturns) | undefined): LockKindOptions | undefined {
  if (options === undefined) return undefined;
  const lockOptions: LockKindOptions & WithLockReturns = { ...options };
  delete lockOptions.returns;
  return lockOptions;
}
