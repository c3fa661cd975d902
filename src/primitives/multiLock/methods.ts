import type { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { multiLock$, type MultiLease, type MultiLockOptions } from './multiLock.js';

/** The multi-lock (`multiLock$`) part of the client. */
export interface MultiLockMethods {
  /**
   * All of the named locks or none, as a cold Observable: emits one `MultiLease` once every member is held,
   * releases them all on unsubscribe, and errors with `LockLostError` if any member is lost.
   *
   * @example
   * await withLease(client.multiLock$(['account:1', 'account:2'], { waitMs: 5_000 }), () => transfer('account:1', 'account:2', 100));
   */
  multiLock$(names: readonly string[], options?: MultiLockOptions): Observable<MultiLease>;
}

export function multiLockMethods(core: ClientCore): MultiLockMethods {
  return {
    multiLock$: (names, options) => multiLock$(core, names, options),
  };
}
