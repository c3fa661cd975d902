import { describeValue } from '../util/describeValue.js';

/** What the module's runtime gives a decorated method when it runs: set on each instance it manages. */
export const RUNTIME = Symbol('rxlock.nestjs.runtime');

/** Marks a method that one of rxlock's decorators wrapped, with what the runtime must set up for it. */
export const LOCKED_METHOD = Symbol('rxlock.nestjs.lockedMethod');

/** What the runtime learns from a wrapped method when it discovers it: the leadership it must campaign for. */
export interface LockedMethodMark {
  readonly leaders: readonly LeaderCampaign[];
}

/** One `@OnLeader` name and its options. */
export interface LeaderCampaign {
  readonly name: string;
  readonly fencing: boolean;
  readonly recampaignDelayMs: number;
  /** The leadership's watchdog timeout (the failover time after a crash); the client's when undefined. */
  readonly watchdogTimeoutMs: number | undefined;
  /** The method it came from, for error messages. */
  readonly where: string;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** How error messages name a decorated method: `@WithLock on Billing.charge`. */
export function describeMethod(decorator: string, target: object, key: string | symbol): string {
  const owner = typeof target === 'function' ? target.name : (target.constructor as { name?: string } | undefined)?.name;
  return `${decorator} on ${owner ?? 'an object'}.${String(key)}`;
}

/** The method a method decorator was applied to, or a TypeError if it is not a method. */
export function methodOf(where: string, descriptor: PropertyDescriptor | undefined): Method {
  const value: unknown = descriptor?.value;
  if (typeof value !== 'function') {
    throw new TypeError(`rxlock: ${where}: it decorates methods only, got ${describeValue(value)}`);
  }
  return value as Method;
}

/**
 * Puts `wrapper` in place of the method. The metadata that decorators applied before this one stored on
 * the method (`@Cron`, `@Get`, ...) is copied over, so the order of decorators does not matter; the marks
 * of rxlock decorators below this one are merged.
 */
export function replaceMethod(descriptor: PropertyDescriptor, original: Method, wrapper: Method, mark: LockedMethodMark): void {
  const reflect = Reflect as unknown as {
    getMetadataKeys?: (target: object) => unknown[];
    getMetadata?: (key: unknown, target: object) => unknown;
    defineMetadata?: (key: unknown, value: unknown, target: object) => void;
  };
  if (reflect.getMetadataKeys !== undefined && reflect.getMetadata !== undefined && reflect.defineMetadata !== undefined) {
    for (const key of reflect.getMetadataKeys(original)) reflect.defineMetadata(key, reflect.getMetadata(key, original), wrapper);
  }
  const below = (original as { [LOCKED_METHOD]?: LockedMethodMark })[LOCKED_METHOD];
  const merged: LockedMethodMark = { leaders: [...(below?.leaders ?? []), ...mark.leaders] };
  Object.defineProperty(wrapper, LOCKED_METHOD, { value: merged });
  Object.defineProperty(wrapper, 'name', { value: original.name });
  Object.defineProperty(wrapper, 'length', { value: original.length });
  descriptor.value = wrapper;
}

/** The mark of a wrapped method, if `value` is one. */
export function lockedMethodMark(value: unknown): LockedMethodMark | undefined {
  return typeof value === 'function' ? (value as { [LOCKED_METHOD]?: LockedMethodMark })[LOCKED_METHOD] : undefined;
}

/** Whether a function is declared `async` (so that it returns a Promise without being called). */
export function isAsyncFunction(fn: Method): boolean {
  return (fn as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'AsyncFunction';
}
