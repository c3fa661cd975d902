import type { Observable } from 'rxjs';
import type { Lease, LockClient } from '../index.js';
import { describeValue } from '../util/describeValue.js';
import { assertCount, assertDuration, assertOptions } from '../util/validate.js';

/** The kinds of lock a decorated call can take: each is one of the client's lease streams. */
export type LockKind = 'lock' | 'fair' | 'read' | 'write' | 'semaphore' | 'leasedSemaphore' | 'multi';

interface WaitOption {
  /**
   * How long to wait before failing with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
}

interface LeaseOption {
  /**
   * A fixed lease in ms instead of the watchdog: the hold expires this long after the grant, and the call
   * fails with `LockLostError` (`expired`) if it is still running just before then.
   * @default undefined: the watchdog keeps the hold while the call runs
   */
  leaseMs?: number | undefined;
}

interface FencingOption {
  /**
   * Give every grant a fencing token (`currentLease().token`).
   * @default false
   */
  fencing?: boolean | undefined;
}

interface PermitsOption {
  /**
   * How many permits the call takes.
   * @default 1
   */
  permits?: number | undefined;
}

/** `lock$` (the default) or `fairLock$`: one holder at a time. */
export interface MutexKindOptions extends WaitOption, LeaseOption, FencingOption {
  /** `lock` (Redisson's RLock) or `fair` (RFairLock: granted in the order the calls started). @default 'lock' */
  kind?: 'lock' | 'fair' | undefined;
}

/** `readLock$` or `writeLock$` of a read-write lock. */
export interface ReadWriteKindOptions extends WaitOption, LeaseOption {
  /** `read`: shared with other readers; `write`: exclusive. */
  kind: 'read' | 'write';
}

/** `semaphore(name).acquire$(permits)`: permits without expiry (Redisson's RSemaphore). */
export interface SemaphoreKindOptions extends WaitOption, PermitsOption {
  /** `semaphore`: permits of `semaphore(name)`. */
  kind: 'semaphore';
}

/** `leasedSemaphore(name).acquire$(permits)`: permits that expire if their holder dies (RPermitExpirableSemaphore). */
export interface LeasedSemaphoreKindOptions extends WaitOption, LeaseOption, PermitsOption {
  /** `leasedSemaphore`: permits of `leasedSemaphore(name)`. */
  kind: 'leasedSemaphore';
}

/** `multiLock$(names)`: all of the named locks or none; the name (or name function) gives an array. */
export interface MultiKindOptions extends WaitOption, LeaseOption, FencingOption {
  /** `multi`: every lock of an array of names, all or none (`multiLock$`). */
  kind: 'multi';
}

/** Which lock a call takes under a single name, and how it waits for it. */
export type SingleLockKindOptions = MutexKindOptions | ReadWriteKindOptions | SemaphoreKindOptions | LeasedSemaphoreKindOptions;

/** Which lock a call takes, and how it waits for it. */
export type LockKindOptions = SingleLockKindOptions | MultiKindOptions;

const KIND_OPTION_KEYS: Readonly<Record<LockKind, readonly string[]>> = {
  lock: ['kind', 'waitMs', 'leaseMs', 'fencing'],
  fair: ['kind', 'waitMs', 'leaseMs', 'fencing'],
  read: ['kind', 'waitMs', 'leaseMs'],
  write: ['kind', 'waitMs', 'leaseMs'],
  semaphore: ['kind', 'waitMs', 'permits'],
  leasedSemaphore: ['kind', 'waitMs', 'leaseMs', 'permits'],
  multi: ['kind', 'waitMs', 'leaseMs', 'fencing'],
};

/**
 * Checks lock options when a decorator is applied, so that a typo fails at class definition rather than on
 * the first call. `extraKeys` are the decorator's own options. Returns the kind.
 */
export function checkLockKindOptions(where: string, options: unknown, extraKeys: readonly string[] = []): LockKind {
  const kind = (options as { kind?: unknown } | undefined)?.kind ?? 'lock';
  if (typeof kind !== 'string' || !Object.hasOwn(KIND_OPTION_KEYS, kind)) {
    throw new TypeError(`rxlock: ${where}: option "kind" must be one of ${Object.keys(KIND_OPTION_KEYS).join(', ')}, got ${describeValue(kind)}`);
  }
  const lockKind = kind as LockKind;
  assertOptions(options, [...KIND_OPTION_KEYS[lockKind], ...extraKeys], where);
  const { waitMs, leaseMs, fencing, permits } = (options ?? {}) as { waitMs?: unknown; leaseMs?: unknown; fencing?: unknown; permits?: unknown };
  if (waitMs !== undefined) assertDuration(waitMs, 'waitMs', where, { min: 0 });
  if (leaseMs !== undefined) assertDuration(leaseMs, 'leaseMs', where, { min: 10 });
  if (fencing !== undefined && typeof fencing !== 'boolean')
    throw new TypeError(`rxlock: ${where}: option "fencing" must be a boolean, got ${describeValue(fencing)}`);
  if (permits !== undefined) assertCount(permits, 'permits', where, 1);
  return lockKind;
}

/** The lease stream of the kind the options name, under `name` (an array for `multi`). */
export function leases$(client: LockClient, options: LockKindOptions | undefined, name: string | readonly string[]): Observable<Lease> {
  const opts = options ?? {};
  switch (opts.kind) {
    case undefined:
    case 'lock':
      return client.lock$(name as string, { waitMs: opts.waitMs, leaseMs: opts.leaseMs, fencing: opts.fencing });
    case 'fair':
      return client.fairLock$(name as string, { waitMs: opts.waitMs, leaseMs: opts.leaseMs, fencing: opts.fencing });
    case 'read':
      return client.readLock$(name as string, { waitMs: opts.waitMs, leaseMs: opts.leaseMs });
    case 'write':
      return client.writeLock$(name as string, { waitMs: opts.waitMs, leaseMs: opts.leaseMs });
    case 'semaphore':
      return client.semaphore(name as string).acquire$(opts.permits ?? 1, { waitMs: opts.waitMs });
    case 'leasedSemaphore':
      return client.leasedSemaphore(name as string).acquire$(opts.permits ?? 1, { waitMs: opts.waitMs, leaseMs: opts.leaseMs });
    case 'multi':
      return client.multiLock$(name as readonly string[], { waitMs: opts.waitMs, leaseMs: opts.leaseMs, fencing: opts.fencing });
  }
}

/** Checks what a name function returned (or the static name): a string, or an array of strings for `multi`. */
export function checkLockName(where: string, kind: LockKind, name: unknown): string | readonly string[] {
  if (kind === 'multi') {
    if (!Array.isArray(name) || name.some((member) => typeof member !== 'string')) {
      throw new TypeError(`rxlock: ${where}: kind "multi" needs an array of lock names, got ${describeValue(name)}`);
    }
    return name as readonly string[];
  }
  if (typeof name !== 'string') throw new TypeError(`rxlock: ${where}: the lock name must be a string, got ${describeValue(name)}`);
  return name;
}
