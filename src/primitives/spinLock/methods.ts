import type { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { spinLock$, type SpinLockOptions } from './spinLock.js';

/** The spin lock (`spinLock$`) part of the client. */
export interface SpinLockMethods {
  /**
   * Redisson's spin lock as a cold Observable: the reentrant lock's layout (it excludes `lock$` holders and
   * waiters of the same name), acquired by polling with back-off instead of pub/sub. Emits one `Lease` when
   * held, releases on unsubscribe, errors with `LockLostError` if the lock is lost.
   *
   * @example
   * client.spinLock$('report', { backOff: { initialMs: 5, maxMs: 200 } }).pipe(switchMap((lease) => build(lease.signal))).subscribe({
   *   error: (error: unknown) => console.error('lost the lock or failed:', error),
   * });
   */
  spinLock$(name: string, options?: SpinLockOptions): Observable<Lease>;
}

export function spinLockMethods(core: ClientCore): SpinLockMethods {
  return {
    spinLock$: (name, options) => spinLock$(core, name, options),
  };
}
