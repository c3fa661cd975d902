/**
 * What `rxlock ls --json` prints: one entry per lock-family object, recognised by its Redis layout.
 * Durations are milliseconds; `null` means "never expires".
 */
export type LockObject =
  LockLike | ReadWriteLockObject | GroupLockObject | SemaphoreObject | LeasedSemaphoreObject | LatchObject | FencingCounterObject | SemaphoreOrLatchObject;

export type ObjectKind = LockObject['kind'];

/** Every kind `ls` can report, in the order the help lists them. */
export const OBJECT_KINDS: readonly ObjectKind[] = [
  'lock',
  'fairLock',
  'readWriteLock',
  'groupLock',
  'semaphore',
  'leasedSemaphore',
  'latch',
  'fencingCounter',
  'semaphoreOrLatch',
];

/** One holder: the `<clientId>:<owner>` field (or a permit id) and its hold count (permits, for a semaphore). */
export interface Holder {
  readonly id: string;
  readonly holds: number;
  /** Read-write lock only. */
  readonly role?: 'reader' | 'writer';
  /** How long this holder's own hold lasts, where it has one (a reader's timeout keys, a leased permit). */
  readonly ttlMs?: number | null;
}

/** A waiter Redis knows by id: in a fair lock's queue, or in rxlock's arrival-ordered waiters of a lock. */
export interface QueuedWaiter {
  readonly id: string;
  /** 1 for the longest-waiting one (the head of the queue). */
  readonly position: number;
  /** How long it has been waiting (rxlock's lock waiters record when they started). */
  readonly waitedMs?: number;
  /**
   * Fair lock: at most the time until the waiter counts as dead and leaves the queue unless it polls again:
   * its deadline in the timeout set, which rxlock's own waiters reach sooner by a share per grant since they
   * joined (a client setting Redis does not store).
   */
  readonly timeoutMs?: number;
}

/**
 * Who waits, as far as Redis can tell. A fair lock keeps its waiters in a queue and rxlock records the
 * waiters of a lock by arrival; for every object, Redis also knows how many client connections are
 * subscribed to its wake-up channel: each is one process with at least one waiter (rxlock and Redisson
 * subscribe once per process and name), and for Redisson's waiters that is all Redis knows.
 */
export interface Waiters {
  /** At most the first 100, in order. */
  readonly queued: readonly QueuedWaiter[];
  readonly queuedCount: number;
  readonly subscribedClients: number;
}

interface ObjectBase {
  /** The Redis key of the object (the name a client used, with its keyPrefix). */
  readonly name: string;
  /** Remaining time to live of the main key: null when it never expires (or there is no main key). */
  readonly ttlMs: number | null;
  readonly holders: readonly Holder[];
  readonly waiters: Waiters;
}

/** A reentrant lock (`lock`) or a fair lock (`fairLock`: the same hash plus a queue of waiters). */
export interface LockLike extends ObjectBase {
  readonly kind: 'lock' | 'fairLock';
  /** The last fencing token handed out (`redisson_lock_token:{name}`), when fencing is used. */
  readonly fencingToken: number | null;
  /** After an unlock rxlock reserves the free lock for its longest-waiting waiter for a moment. */
  readonly handoff: { readonly for: string; readonly remainingMs: number } | null;
}

export interface ReadWriteLockObject extends ObjectBase {
  readonly kind: 'readWriteLock';
  readonly mode: 'read' | 'write';
}

/**
 * Values locked together in one hash (Redisson's RedissonFasterMultiLock, rxlock's `groupLock$`): a holder is an
 * owner, its holds the values it has, and its TTL the time until the first of them runs out.
 */
export interface GroupLockObject extends ObjectBase {
  readonly kind: 'groupLock';
  /** Values held right now (their hold's expiry still ahead). */
  readonly values: number;
}

export interface SemaphoreObject extends ObjectBase {
  readonly kind: 'semaphore';
  /** Available permits (may be negative after `addPermits(-n)`). */
  readonly permits: number;
}

/** A semaphore whose permits carry ids and optional leases (Redisson's RPermitExpirableSemaphore). */
export interface LeasedSemaphoreObject extends ObjectBase {
  readonly kind: 'leasedSemaphore';
  /** Available permits. The leased ones are the holders. */
  readonly permits: number;
}

export interface LatchObject extends ObjectBase {
  readonly kind: 'latch';
  readonly count: number;
}

/** A fencing counter whose lock is not held right now (a held lock reports it as `fencingToken`). */
export interface FencingCounterObject extends ObjectBase {
  readonly kind: 'fencingCounter';
  readonly token: number;
}

/**
 * An integer string that nothing tells apart: a semaphore and a latch store the same thing. Pass
 * `--kind semaphore` or `--kind latch` to read such keys as one of them.
 */
export interface SemaphoreOrLatchObject extends ObjectBase {
  readonly kind: 'semaphoreOrLatch';
  readonly value: number;
}
