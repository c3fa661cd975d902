import { fairLockKeys } from '../../primitives/fairLock/fairLockKeys.js';
import { groupLockKeys } from '../../primitives/groupLock/groupLockKeys.js';
import { latchKeys } from '../../primitives/latch/latchKeys.js';
import { leasedSemaphoreKeys } from '../../primitives/leasedSemaphore/leasedSemaphoreKeys.js';
import { lockKeys } from '../../primitives/lock/lockKeys.js';
import { readWriteLockKeys } from '../../primitives/readWriteLock/readWriteLockKeys.js';
import { semaphoreKeys } from '../../primitives/semaphore/semaphoreKeys.js';

/** Every key and channel a lock-family object named `name` may use, in Redisson's layout plus rxlock's own keys. */
export interface FamilyKeys {
  /** The object itself: a hash (locks), or a string (semaphores, latches). */
  readonly main: string;
  /** Fair lock: LIST of waiter ids, head first. */
  readonly queue: string;
  /** Fair lock: ZSET waiter id → the time (ms) it leaves the queue unless it polls again. */
  readonly queueTimeouts: string;
  /** Semaphore with leased permits: ZSET permit id → lease end (ms). */
  readonly permitLeases: string;
  /** Fencing counter: STRING, the last token handed out. */
  readonly token: string;
  /** rxlock: STRING present while an unlocked lock is reserved for a waiter. */
  readonly handoff: string;
  /** rxlock: HASH hold id → 1 for a lock's reentrant holds, `<clientId>:<owner>` → permits for a semaphore's. */
  readonly holds: string;
  /** rxlock: ZSET of a lock's waiters, `<clientId>:<owner> <leaseMs> <flags> <holdId>` (`waiterMember`) → server time it started waiting. */
  readonly waiters: string;
  /** rxlock: ZSET of the last 5 minutes' op ids and replies of a semaphore (`trySetPermits`, `addPermits`) or a latch (`trySetCount`, `countDown`); outlives a deleted or opened object until it expires. */
  readonly ops: string;
  /** A reader's timeout keys are `<readerTimeoutBase>:<field>:rwlock_timeout:<k>`. */
  readonly readerTimeoutBase: string;
  readonly lockChannel: string;
  /** Group lock (Redisson's RedissonFasterMultiLock): the lock channel, where its releases wake its waiters. */
  readonly groupChannel: string;
  readonly readWriteChannel: string;
  readonly semaphoreChannel: string;
  readonly latchChannel: string;
}

/** The keys as the primitives themselves build them (their `*Keys.ts`), so the CLI never names a key another way. */
export function familyKeys(name: string): FamilyKeys {
  const lock = lockKeys(name);
  const fair = fairLockKeys(name);
  const readWrite = readWriteLockKeys(name);
  const semaphore = semaphoreKeys(name);
  return {
    main: name,
    queue: fair.queue,
    queueTimeouts: fair.timeouts,
    permitLeases: leasedSemaphoreKeys(name).timeouts,
    token: lock.token,
    handoff: lock.handoff,
    holds: lock.holds,
    waiters: lock.waiters,
    ops: semaphore.ops,
    readerTimeoutBase: readWrite.timeoutBase,
    lockChannel: lock.channel,
    groupChannel: groupLockKeys(name).channel,
    readWriteChannel: readWrite.channel,
    semaphoreChannel: semaphore.channel,
    // Redisson wraps the latch's name in braces whether or not it has a hash tag already.
    latchChannel: latchKeys(name).channel,
  };
}

/** Prefixes of keys that belong to the object named in the rest of the key. */
const COMPANION_PREFIXES = [
  'redisson_lock_token:',
  'redisson_lock_queue:',
  'redisson_lock_timeout:',
  'rxlock_holds:',
  'rxlock_handoff:',
  'rxlock_waiters:',
  'rxlock_fair_waiters:',
  'rxlock_ops:',
];
const READER_TIMEOUT = /:rwlock_timeout:\d+$/;
const PERMIT_LEASES_SUFFIX = ':timeout';

/**
 * The names of the objects a key may belong to: the key itself for a main key, the embedded name for a
 * companion key (`redisson_lock_token:{orders}` → `orders`). Keys of other applications come out as
 * candidates too; inspecting them tells.
 */
export function candidateNames(key: string): string[] {
  for (const prefix of COMPANION_PREFIXES) {
    if (key.startsWith(prefix)) return unwrap(key.slice(prefix.length));
  }
  if (READER_TIMEOUT.test(key)) {
    // `{name}:<clientId>:<owner>:rwlock_timeout:<k>`; with a tagged name the hash is found by its own key.
    const close = key.indexOf('}');
    return key.startsWith('{') && close > 1 ? [key.slice(1, close)] : [];
  }
  if (key.endsWith(PERMIT_LEASES_SUFFIX)) return [...unwrap(key.slice(0, -PERMIT_LEASES_SUFFIX.length)), key];
  return [key];
}

/** Undoes `prefixed`/`suffixed`: `{orders}` → `orders`, a tagged name stays as it is. */
function unwrap(rest: string): string[] {
  const inner = rest.slice(1, -1);
  if (rest.startsWith('{') && rest.endsWith('}') && !/[{}]/.test(inner) && inner !== '') return [inner];
  return rest.includes('{') ? [rest] : [];
}
