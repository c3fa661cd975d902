import type { Hold } from '../../engine/Hold.js';
import type { Lease } from '../../engine/Lease.js';
import { LeaseView } from '../../engine/LeaseView.js';
import { madeOf } from '../../engine/leaseParts.js';

/** Permits held from a `leasedSemaphore`: a lease whose permits each have an id. */
export interface PermitLease extends Lease {
  /** The ids of the permits held, 32 hex digits each: Redisson's permit ids, stored as their 16 bytes in `{name}:timeout`. */
  readonly permitIds: readonly string[];
}

/** The held lease with its permit ids; every other field reads through to the lease. */
export function toPermitLease(lease: Hold, permitIds: readonly string[]): PermitLease {
  return new PermitLeaseView(lease, permitIds);
}

class PermitLeaseView extends LeaseView implements PermitLease {
  readonly permitIds: readonly string[];
  readonly #lease: Hold;

  constructor(lease: Hold, permitIds: readonly string[]) {
    super();
    this.permitIds = permitIds;
    this.#lease = lease;
    madeOf(this, [lease]);
  }

  protected get lease(): Hold {
    return this.#lease;
  }
}
