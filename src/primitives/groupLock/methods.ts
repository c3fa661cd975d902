import type { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { groupLock$, type GroupLockOptions } from './groupLock.js';
import type { GroupValue } from './valueField.js';

/** The group lock (`groupLock$`) part of the client. */
export interface GroupLockMethods {
  /**
   * Many values locked together, all or none, as fields of the one hash `group` (Redisson's
   * RedissonFasterMultiLock, `getMultiLock(group, values)`): one script takes them all, one renews them and
   * one releases them, so thousands of values cost one round trip. Emits one `Lease` once every value is held,
   * releases on unsubscribe, and errors with `LockLostError` if any value is lost. A string value is locked
   * under its UTF-8 bytes (a Redisson client with `StringCodec`); give the bytes your Redisson codec encodes a
   * value to as a `Uint8Array`.
   *
   * @example
   * const orderIds = ['1001', '1002', '1003'];
   * await withLease(client.groupLock$('orders', orderIds, { waitMs: 5_000 }), () => shipTogether(orderIds));
   */
  groupLock$(group: string, values: readonly GroupValue[], options?: GroupLockOptions): Observable<Lease>;
}

/** The group lock's methods, bound to one client. */
export function groupLockMethods(core: ClientCore): GroupLockMethods {
  return {
    groupLock$: (group, values, options) => groupLock$(core, group, values, options),
  };
}
