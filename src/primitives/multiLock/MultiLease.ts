import type { Hold } from '../../engine/Hold.js';
import type { Lease } from '../../engine/Lease.js';
import { madeOf } from '../../engine/leaseParts.js';

/** A held multi-lock: every member lock at once. */
export interface MultiLease extends Lease {
  /** The member leases, in the order they were acquired (sorted by name); each has its own `token` with `fencing: true`. */
  readonly members: readonly Lease[];
}

/**
 * The lease of a multi-lock, made of its members' leases. Its `name` is the member names joined by ",",
 * its `token` is undefined (see each member's), its deadline is the earliest member's, and it is held
 * while every member is. Its signal aborts as soon as any member's does.
 */
export class MultiLeaseView implements MultiLease {
  readonly name: string;
  readonly owner: string;
  readonly acquiredAt: number;
  readonly token = undefined;
  readonly members: readonly Hold[];
  #signal: AbortSignal | undefined;

  constructor(members: readonly Hold[], owner: string, acquiredAt: number) {
    this.members = members;
    this.name = members.map((member) => member.name).join(',');
    this.owner = owner;
    this.acquiredAt = acquiredAt;
    madeOf(this, members);
  }

  get deadline(): number {
    return Math.min(...this.members.map((member) => member.deadline));
  }

  get held(): boolean {
    return this.members.every((member) => member.held);
  }

  get signal(): AbortSignal {
    this.#signal ??= AbortSignal.any(this.members.map((member) => member.signal));
    return this.#signal;
  }
}
