import type { Observable } from 'rxjs';
import type { Lease, LockClient } from '../../src/index.js';
import type { LockObservable } from './observableLock.js';

/** An rxlock primitive in `lock$`'s shape, for the scenarios that run rxlock alone. */
export interface RxlockPrimitive {
  readonly id: string;
  readonly label: string;
  /** The Observable lock of `client`, or undefined when this build does not have it. */
  lockOf(client: LockClient): LockObservable | undefined;
}

export const PLAIN_LOCK: RxlockPrimitive = {
  id: 'rxlock',
  label: 'rxlock lock$',
  lockOf: () => (client, name) => client.lock$(name),
};

/** `fairLock$` as a property that a build may lack (the bench also runs against builds from before it). */
type MaybeFair = { readonly fairLock$?: (name: string) => Observable<Lease> };

const fairLockOf = (client: LockClient): MaybeFair['fairLock$'] => (client as unknown as MaybeFair).fairLock$;

export const FAIR_LOCK: RxlockPrimitive = {
  id: 'rxlock-fair',
  label: 'rxlock fairLock$',
  lockOf(client) {
    if (typeof fairLockOf(client) !== 'function') return undefined;
    return (owner, name) => fairLockOf(owner)!(name);
  },
};

export const RXLOCK_PRIMITIVES: readonly RxlockPrimitive[] = [PLAIN_LOCK, FAIR_LOCK];
