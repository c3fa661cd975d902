import type { HeldLease } from '../../engine/HeldLease.js';
import type { Lease } from '../../engine/Lease.js';

/** Permits held from a `leasedSemaphore`: a lease whose permits each have an id. */
export interface PermitLease extends Lease {
  /** The ids of the permits held, 32 hex digits each: Redisson's permit ids, stored as their 16 bytes in `{name}:timeout`. */
  readonly permitIds: readonly string[];
}

/** The held lease with its permit ids; the live fields (signal, deadline, held) read through to the lease. */
export function toPermitLease(lease: HeldLease, permitIds: readonly string[]): PermitLease {
  return {
    name: lease.name,
    owner: lease.owner,
    acquiredAt: lease.acquiredAt,
    token: lease.token,
    permitIds,
    get signal() {
      return lease.signal;
    },
    get deadline() {
      return lease.deadline;
    },
    get held() {
      return lease.held;
    },
  };
}
