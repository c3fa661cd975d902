import type { ClientCore } from '../../engine/ClientCore.js';
import { leasedSemaphore, type LeasedSemaphore } from './leasedSemaphore.js';

/** The semaphore with expiring permits (`leasedSemaphore(name)`) part of the client. */
export interface LeasedSemaphoreMethods {
  /**
   * A semaphore whose permits are leases (Redisson's RPermitExpirableSemaphore layout): each permit has an id
   * and an expiry, and expired permits go back to the pool by themselves.
   */
  leasedSemaphore(name: string): LeasedSemaphore;
}

export function leasedSemaphoreMethods(core: ClientCore): LeasedSemaphoreMethods {
  return {
    leasedSemaphore: (name) => leasedSemaphore(core, name),
  };
}
