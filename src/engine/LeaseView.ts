import type { Hold } from './Hold.js';
import type { Lease } from './Lease.js';

/**
 * A `Lease` that reads every field through to a held lease, for what wraps one (a promise API handle,
 * permits). A class, as V8 keeps an object literal with getters in dictionary mode.
 */
export abstract class LeaseView implements Lease {
  /** The held lease this one reads through to. */
  protected abstract get lease(): Hold;

  get name(): string {
    return this.lease.name;
  }

  get owner(): string {
    return this.lease.owner;
  }

  get acquiredAt(): number {
    return this.lease.acquiredAt;
  }

  get token(): number | undefined {
    return this.lease.token;
  }

  get signal(): AbortSignal {
    return this.lease.signal;
  }

  get deadline(): number {
    return this.lease.deadline;
  }

  get held(): boolean {
    return this.lease.held;
  }
}
