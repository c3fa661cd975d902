import { describeValue } from '../util/describeValue.js';
import { assertDuration, assertName, assertOptions } from '../util/validate.js';
import { runWithLease } from './currentLease.js';
import { runtimeOf } from './LockRuntime.js';
import { describeMethod, isAsyncFunction, methodOf, replaceMethod } from './methodWrapping.js';

/** Options of `@OnLeader`. Every `@OnLeader` of one name in an application must use the same. */
export interface OnLeaderOptions {
  /**
   * Give every term a fencing token (`currentLease().token`), growing with every term of the name.
   * @default false
   */
  fencing?: boolean | undefined;
  /**
   * Pause after a lost term before campaigning again.
   * @default 0
   */
  recampaignDelayMs?: number | undefined;
  /**
   * The leadership's watchdog timeout: how long after a leader dies another instance takes over.
   * @default the client's `watchdogTimeoutMs` (30 s)
   */
  watchdogTimeoutMs?: number | undefined;
}

const ON_LEADER_OPTION_KEYS = ['fencing', 'recampaignDelayMs', 'watchdogTimeoutMs'];

/**
 * The method decorator `@OnLeader` returns (TypeScript's `experimentalDecorators`, as NestJS uses).
 *
 * @typeParam M - the decorated method's type
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LeaderMethodDecorator = <M extends (...args: any[]) => unknown>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Runs the method only while this application instance is the leader for `name`: the module campaigns
 * with `leader$(name)` from the application's bootstrap to its shutdown, and a call made while another
 * instance leads does nothing and returns `undefined` (a resolved `undefined` for an `async` method).
 * Put it on the handler of `@Cron`, `@Interval` or `@Timeout` (`@nestjs/schedule`), in either order, so
 * that the job runs on one instance: each instance's scheduler fires, only the leader's call runs.
 *
 * If the leader dies, another instance takes over once its lease runs out (`watchdogTimeoutMs`, by default the
 * client's); on a graceful shutdown the leadership is released at once. A term can end during
 * a call: `currentLease().signal` aborts then.
 */
export function OnLeader(name: string, options?: OnLeaderOptions): LeaderMethodDecorator {
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    const where = describeMethod('@OnLeader', target, key);
    assertName(name, where);
    assertOptions(options, ON_LEADER_OPTION_KEYS, where);
    const { fencing = false, recampaignDelayMs = 0, watchdogTimeoutMs } = options ?? {};
    if (typeof fencing !== 'boolean') throw new TypeError(`rxlock: ${where}: option "fencing" must be a boolean, got ${describeValue(fencing)}`);
    assertDuration(recampaignDelayMs, 'recampaignDelayMs', where, { min: 0 });
    if (watchdogTimeoutMs !== undefined) assertDuration(watchdogTimeoutMs, 'watchdogTimeoutMs', where, { min: 30 });
    const original = methodOf(where, descriptor);
    const skipped = isAsyncFunction(original) ? () => Promise.resolve(undefined) : () => undefined;
    const wrapper = function (this: unknown, ...args: unknown[]): unknown {
      const runtime = runtimeOf(this, where);
      const lease = runtime.leaderLease(name);
      if (lease?.held !== true) return skipped();
      return runtime.track(runWithLease(lease, () => original.apply(this, args)));
    };
    replaceMethod(descriptor, original, wrapper, { leaders: [{ name, fencing, recampaignDelayMs, watchdogTimeoutMs, where }] });
  };
}
