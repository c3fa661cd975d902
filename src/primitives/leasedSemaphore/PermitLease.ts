import type { HeldLease } from '../../engine/HeldLease.js';
import type { Lease } from '../../engine/Lease.js';

/** Permits held from a `leasedSemaphore`: a lease whose permits each have an id. */
export interface PermitLease extends Lease {
  /** The ids of the permits held, 32 hex digits each: Redisson's permit ids, stored as their 16 bytes in `{name}:timeout`. */
  readonly permitIds: readonly string[];
}

/** The held lease with its permit ids; the live fields (signal, deadline, held) read through to the lease. */
export function toPermitLease(lease: HeldLease, permitIds: readonly string[]): PermitLease {
  return new HeldPermits(lease, permitIds);
}

// A class rather than an object literal with getters, which V8 would keep in dictionary mode (a property
// dictionary per lease).
class HeldPermits implements PermitLease {
  readonly name: string;
  readonly owner: string;
  readonly acquiredAt: number;
  readonly token: number | undefined;
  readonly permitIds: readonly string[];
  readonly #lease: HeldLease;

  constructor(lease: HeldLease, permitIds: readonly string[]) {
    this.name = lease.name;
    this.owner = lease.owner;
    this.acquiredAt = lease.acquiredAt;
    this.token = lease.token;
    this.permitIds = permitIds;
    this.#lease = lease;
  }

  get signal(): AbortSignal {
    return this.#lease.signal;
  }

  get deadline(): number {
    return this.#lease.deadline;
  }

  get held(): boolean {
    return this.#lease.held;
  }
}
