import { Hold } from './Hold.js';

/**
 * The held leases behind each lease that wraps some (permits with their ids, a multi-lock's members), so that
 * what scopes work to a lease can end it, and tell a lease of another source apart. A registry rather than a
 * method on the lease: only the library can make an entry here, where any object could carry a method.
 */
const parts = new WeakMap<object, readonly Hold[]>();

/** Records that ending `lease` means ending `held`, in acquisition order. */
export function madeOf(lease: object, held: readonly Hold[]): void {
  parts.set(lease, held);
}

/** The held leases that a lease emitted by one of rxlock's streams is made of, in acquisition order; undefined for any other value. */
export function heldLeasesOf(lease: unknown): readonly Hold[] | undefined {
  if (lease instanceof Hold) return [lease];
  return typeof lease === 'object' && lease !== null ? parts.get(lease) : undefined;
}
