import type { Observable, ObservableInput } from 'rxjs';
import type { Lease } from '../index.js';
import { describeValue } from '../util/describeValue.js';
import type { LockKindOptions } from './lockKinds.js';
import { RUNTIME } from './methodWrapping.js';

/** What a decorated method needs from the application it runs in. */
export interface LockRuntime {
  /** `work` inside a lease of the kind the options name; counted as in flight until it ends. */
  locked$<T>(options: LockKindOptions | undefined, name: string | readonly string[], work: (lease: Lease) => ObservableInput<T>): Observable<T>;
  /** The lease of the leadership term this instance holds for `name`, if any (read `held` before trusting it). */
  leaderLease(name: string): Lease | undefined;
  /** Counts a leader-only call's promise as in flight until it settles. */
  track<T>(result: T): T;
}

/** The runtime the module set on an instance, or a TypeError naming the method. */
export function runtimeOf(instance: unknown, where: string): LockRuntime {
  const runtime = instance !== null && typeof instance === 'object' ? (instance as { [RUNTIME]?: LockRuntime })[RUNTIME] : undefined;
  if (runtime === undefined) {
    throw new TypeError(
      `rxlock: ${where}: called on ${describeValue(instance)} that RxlockModule did not set up; decorated methods work on the singleton providers and controllers of an application that imports RxlockModule.forRoot() (or forRootAsync()), once it is initialised`,
    );
  }
  return runtime;
}
