import { AsyncLocalStorage } from 'node:async_hooks';
import type { Lease } from '../index.js';

// Context, not a registry: it carries the lease of the call that is running, whichever client granted it.
const leases = new AsyncLocalStorage<Lease>();

/**
 * The lease of the innermost `@WithLock` call or `@OnLeader` term this code runs in, or `undefined` outside
 * one. Promise-based work cannot be cancelled: pass `currentLease()?.signal` to what it awaits so that it
 * stops when the lease is lost (or the leadership term ends).
 */
export function currentLease(): Lease | undefined {
  return leases.getStore();
}

/** Runs `fn` with `lease` as the current lease. */
export function runWithLease<T>(lease: Lease, fn: () => T): T {
  return leases.run(lease, fn);
}
