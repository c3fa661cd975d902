import type { ClientCore } from '../../engine/ClientCore.js';
import { leasedSemaphore, type LeasedSemaphore } from './leasedSemaphore.js';

/** The semaphore with expiring permits (`leasedSemaphore(name)`) part of the client. */
export interface LeasedSemaphoreMethods {
  /**
   * A semaphore whose permits are leases (Redisson's RPermitExpirableSemaphore layout): each permit has an id
   * and an expiry, and expired permits go back to the pool by themselves.
   *
   * @example
   * const gpus = client.leasedSemaphore('gpus');
   * await gpus.trySetPermits(2);
   * // If this process dies, its permit goes back to the pool once its lease runs out.
   * await withLease(gpus.acquire$(1, { leaseMs: 60_000 }), (lease) => train(lease.signal));
   */
  leasedSemaphore(name: string): LeasedSemaphore;
}

export function leasedSemaphoreMethods(core: ClientCore): LeasedSemaphoreMethods {
  return {
    leasedSemaphore: (name) => leasedSemaphore(core, name),
  };
}
