import { defer, Observable, type Subscription } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Hold } from '../../engine/Hold.js';
import { LockTimeoutError } from '../../errors/LockTimeoutError.js';
import { callSite, describeValue } from '../../util/describeValue.js';
import { assertName } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { checkLockOptions, chooseOwner, LOCK_OPTION_KEYS, lockHold$, type LockOptions } from '../lock/lock.js';
import { MultiLeaseView, type MultiLease } from './MultiLease.js';

export type { MultiLease } from './MultiLease.js';

/**
 * Options of `multiLock$`: those of `lock$`, applied to every member. `waitMs` bounds the whole
 * acquisition, not each member; `owner` (or the enclosing `withLock`'s) holds every member.
 */
export type MultiLockOptions = LockOptions;

/**
 * All of the locks or none (Redisson's RedissonMultiLock over RLocks). The members are acquired one after
 * another in one global order (sorted names), so two multi-locks over overlapping names never wait for
 * each other in a circle. The lease is emitted once every member is held. If the whole cannot be had
 * within `waitMs`, the members already held are released and the stream errors with `LockTimeoutError`
 * naming the member that was not had. If any member is lost, the stream errors with its `LockLostError`
 * and every other member is released.
 */
export function multiLock$(core: ClientCore, names: readonly string[], options: MultiLockOptions = {}): Observable<MultiLease> {
  return defer(() => {
    const members = checkNames(names);
    checkLockOptions(callSite('multiLock$', members.join(',')), members[0], options, LOCK_OPTION_KEYS, core.settings);
    const { signal, waitMs, ...perMember } = options;
    return abortable(multiHold$(core, members, perMember, waitMs), signal);
  });
}

function multiHold$(core: ClientCore, members: readonly string[], options: LockOptions, waitMs: number | undefined): Observable<MultiLease> {
  return new Observable<MultiLease>((subscriber) => {
    const { scheduler } = core;
    const deadline = waitMs === undefined ? undefined : scheduler.now() + waitMs;
    const common = options.owner ?? core.newOwner();
    const holds: Subscription[] = [];
    const leases: Hold[] = [];
    const { leaseMs } = options;
    // Several members with a fixed lease are held under the watchdog until the last one is had, then all are
    // set to the fixed lease at once: counted from each member's own grant, an early member's lease would run
    // out while a later one is awaited.
    const fixLater = leaseMs !== undefined && members.length > 1;
    const emit = (): void => {
      subscriber.next(new MultiLeaseView(leases, common, scheduler.now()));
    };
    const fixAll = (ms: number): void => {
      let left = leases.length;
      for (const lease of leases) lease.fixExpiry(ms, () => --left === 0 && emit());
    };
    const acquireFrom = (index: number): void => {
      const member = members[index];
      if (member === undefined) {
        if (fixLater) fixAll(leaseMs);
        else emit();
        return;
      }
      const remaining = deadline === undefined ? undefined : Math.max(0, deadline - scheduler.now());
      // Listed rather than spread: `{ ...options, waitMs }` takes V8's slow path.
      const memberOptions: LockOptions = {
        leaseMs: fixLater ? undefined : leaseMs,
        watchdogTimeoutMs: options.watchdogTimeoutMs,
        owner: options.owner,
        fencing: options.fencing,
        waitMs: remaining,
      };
      const hold = lockHold$(
        core,
        member,
        memberOptions,
        chooseOwner(core, core.keyPrefix + member, options.owner, () => common),
      ).subscribe({
        next: (lease) => {
          leases.push(lease);
          acquireFrom(index + 1);
        },
        error: (error: unknown) => {
          subscriber.error(error instanceof LockTimeoutError && waitMs !== undefined ? new LockTimeoutError(member, waitMs) : error);
        },
      });
      holds.push(hold);
    };
    acquireFrom(0);
    return () => {
      for (const hold of holds.reverse()) hold.unsubscribe();
    };
  });
}

/** The member names, checked, without duplicates, in the global acquisition order. */
function checkNames(names: unknown): [string, ...string[]] {
  const where = 'multiLock$';
  if (!Array.isArray(names)) throw new TypeError(`rxlock: ${where}: names must be an array of lock names, got ${describeValue(names)}`);
  if (names.length === 0) throw new RangeError(`rxlock: ${where}: names must contain at least one lock name`);
  for (const name of names as unknown[]) assertName(name, where);
  const unique = [...new Set(names as string[])].sort(compareCodeUnits);
  return unique as [string, ...string[]];
}

/** Plain UTF-16 code unit order: the same in every JavaScript client, whatever the locale. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
