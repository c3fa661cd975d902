import type { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { fairLock$, type FairLockOptions } from './fairLock.js';

/** The fair lock (`fairLock$`) part of the client. */
export interface FairLockMethods {
  /**
   * A fair reentrant lock (Redisson's RFairLock) as a cold Observable: granted in the order the
   * acquisitions started, across all clients; emits one `Lease` when held, releases on unsubscribe.
   *
   * @example
   * // Print jobs take turns in the order they asked.
   * await withLease(client.fairLock$('printer', { waitMs: 60_000 }), () => printJob(job));
   */
  fairLock$(name: string, options?: FairLockOptions): Observable<Lease>;
}

export function fairLockMethods(core: ClientCore): FairLockMethods {
  return {
    fairLock$: (name, options) => fairLock$(core, name, options),
  };
}
