import { familyKeys } from './familyKeys.js';
import type { Holder, LockLike, LockObject, ObjectKind, QueuedWaiter, Waiters } from './LockObject.js';
import type { KeyType, RawLayout } from './readLayout.js';
import { memberField } from '../../primitives/lock/waiterMember.js';

/** What the keys of one name are: a lock-family object, a key of some other use, or nothing at all. */
export type Recognition =
  { readonly found: 'object'; readonly object: LockObject } | { readonly found: 'foreign'; readonly type: KeyType } | { readonly found: 'nothing' };

/** Subscriber counts by channel (PUBSUB NUMSUB), 0 for channels not listed. */
export type SubscriberCounts = ReadonlyMap<string, number>;

/** Redisson's lease score for a permit acquired without a lease. */
const NO_LEASE = 922_337_203_685_477;
const INTEGER = /^-?\d+$/;
const COUNT = /^\d+$/;
/** The kinds an integer string can be that `--kind` may pick from. */
const STRING_KINDS = ['semaphore', 'leasedSemaphore', 'latch'] as const;

/** The channels whose subscribers tell who waits for (or what kind of object is) this layout. */
export function channelsToCount(layout: RawLayout): string[] {
  const keys = familyKeys(layout.name);
  if (layout.mainType === 'string') return [keys.semaphoreChannel, keys.latchChannel];
  if (layout.mainType === 'hash' && layout.hash.has('mode')) return [keys.readWriteChannel];
  return [keys.lockChannel];
}

/**
 * Recognises a lock-family object from its layout. An integer string is a semaphore or a latch; see
 * `stringKind` for how they are told apart, and `kinds` (from `--kind`) for settling it by hand.
 */
export function classify(layout: RawLayout, subscribers: SubscriberCounts, kinds?: ReadonlySet<ObjectKind>): Recognition {
  const keys = familyKeys(layout.name);
  const clients = (channel: string): number => subscribers.get(channel) ?? 0;
  const unqueued = (channel: string): Waiters => ({ queued: [], queuedCount: 0, subscribedClients: clients(channel) });
  const base = { name: layout.name, ttlMs: ttl(layout.mainTtlMs) };
  const hasQueue = layout.queue.type === 'list' || layout.queueTimeouts.type === 'zset';
  const lockLike = (holders: Holder[]): Omit<LockLike, 'kind'> => ({
    ...base,
    holders,
    waiters: hasQueue ? fairQueue(layout, clients(keys.lockChannel)) : lockWaiters(layout, clients(keys.lockChannel)),
    fencingToken: layout.token !== undefined && INTEGER.test(layout.token) ? Number(layout.token) : null,
    handoff: handoffOf(layout),
  });

  switch (layout.mainType) {
    case 'hash': {
      if (layout.hash.has('mode')) return readWriteLock(layout, unqueued(keys.readWriteChannel));
      const holders = lockHolders(layout.hash);
      if (holders === undefined) return groupLock(layout, unqueued(keys.groupChannel)) ?? { found: 'foreign', type: 'hash' };
      return found({ ...lockLike(holders), kind: hasQueue ? 'fairLock' : 'lock' });
    }
    case 'string': {
      const value = layout.value ?? '';
      if (!INTEGER.test(value)) return { found: 'foreign', type: 'string' };
      const count = Number(value);
      if (layout.permitLeases.type === 'zset') {
        const holders = layout.permitLeases.entries.map(([id, until]): Holder => ({
          id,
          holds: 1,
          ttlMs: until >= NO_LEASE ? null : Math.max(0, until - layout.serverTimeMs),
        }));
        return found({ ...base, kind: 'leasedSemaphore', permits: count, holders, waiters: unqueued(keys.semaphoreChannel) });
      }
      const kind = stringKind(layout, count, clients(keys.semaphoreChannel), clients(keys.latchChannel), kinds);
      if (kind === 'leasedSemaphore') return found({ ...base, kind, permits: count, holders: [], waiters: unqueued(keys.semaphoreChannel) });
      if (kind === 'semaphore') {
        const holders = [...layout.holds].filter(([, permits]) => COUNT.test(permits)).map(([id, permits]): Holder => ({ id, holds: Number(permits) }));
        return found({ ...base, kind, permits: count, holders, waiters: unqueued(keys.semaphoreChannel) });
      }
      if (kind === 'latch') return found({ ...base, kind, count, holders: [], waiters: unqueued(keys.latchChannel) });
      const waiters: Waiters = { queued: [], queuedCount: 0, subscribedClients: clients(keys.semaphoreChannel) + clients(keys.latchChannel) };
      return found({ ...base, kind: 'semaphoreOrLatch', value: count, holders: [], waiters });
    }
    case 'none': {
      const object = lockLike([]);
      if (hasQueue) return found({ ...object, kind: 'fairLock' });
      if (object.handoff !== null || object.waiters.queuedCount > 0) return found({ ...object, kind: 'lock' });
      if (object.fencingToken !== null) {
        return found({ ...base, kind: 'fencingCounter', token: object.fencingToken, holders: [], waiters: object.waiters });
      }
      return { found: 'nothing' };
    }
    default:
      return { found: 'foreign', type: layout.mainType };
  }
}

/** Name and kind first, as `ls --json` prints them. */
function found(object: LockObject): Recognition {
  const { name, kind, ...rest } = object;
  return { found: 'object', object: { name, kind, ...rest } as LockObject };
}

function ttl(pttl: number): number | null {
  return pttl >= 0 ? pttl : null;
}

/** `<clientId>:<owner>` → positive hold count, or undefined when the hash is not a lock. */
function lockHolders(hash: ReadonlyMap<string, string>): Holder[] | undefined {
  const holders: Holder[] = [];
  for (const [id, count] of hash) {
    if (!id.includes(':') || !COUNT.test(count) || Number(count) < 1) return undefined;
    holders.push({ id, holds: Number(count) });
  }
  return holders;
}

/** A group lock's value field: Redisson's hash of the value, 16 bytes in base64 without its `==`. */
const GROUP_VALUE = /^[A-Za-z0-9+/]{22}$/;
const GROUP_HOLD_FIELD = /^([A-Za-z0-9+/]{22}):(.+):(expire_time|lock_count)$/;

/**
 * A group lock (`groupLock$`, Redisson's RedissonFasterMultiLock), or undefined when the hash is not one: every
 * field is a value (→ its owner's `<clientId>:<owner>`) or one of an owner's `<value>:<owner>:expire_time` /
 * `lock_count` (→ an integer). An owner holds a value while its expiry (server time, ms) is ahead.
 */
function groupLock(layout: RawLayout, waiters: Waiters): Recognition | undefined {
  const owners = new Map<string, string>();
  for (const [field, value] of layout.hash) {
    if (GROUP_VALUE.test(field) && value.includes(':')) owners.set(field, value);
    else if (!GROUP_HOLD_FIELD.test(field) || !INTEGER.test(value)) return undefined;
  }
  const held = new Map<string, { values: number; until: number }>();
  for (const [value, owner] of owners) {
    const until = Number(layout.hash.get(`${value}:${owner}:expire_time`) ?? Number.NaN);
    if (!(until > layout.serverTimeMs)) continue;
    const holder = held.get(owner);
    held.set(owner, { values: (holder?.values ?? 0) + 1, until: Math.min(holder?.until ?? Infinity, until) });
  }
  const holders = [...held].map(([id, { values, until }]): Holder => ({ id, holds: values, ttlMs: until - layout.serverTimeMs }));
  const values = holders.reduce((sum, holder) => sum + holder.holds, 0);
  return found({ name: layout.name, ttlMs: ttl(layout.mainTtlMs), kind: 'groupLock', values, holders, waiters });
}

function readWriteLock(layout: RawLayout, waiters: Waiters): Recognition {
  const mode = layout.hash.get('mode');
  if (mode !== 'read' && mode !== 'write') return { found: 'foreign', type: 'hash' };
  const holders: Holder[] = [];
  for (const [field, count] of layout.hash) {
    if (field === 'mode') continue;
    if (!COUNT.test(count)) return { found: 'foreign', type: 'hash' };
    if (field.endsWith(':write')) {
      holders.push({ id: field.slice(0, -':write'.length), holds: Number(count), role: 'writer' });
    } else {
      const readerTtl = layout.readerTtls.get(field) ?? -2;
      holders.push({ id: field, holds: Number(count), role: 'reader', ttlMs: readerTtl === -1 ? null : Math.max(0, readerTtl) });
    }
  }
  return found({ name: layout.name, ttlMs: ttl(layout.mainTtlMs), kind: 'readWriteLock', mode, holders, waiters });
}

/** A fair lock's waiters in queue order, each with the time left before it would be dropped. */
function fairQueue(layout: RawLayout, subscribedClients: number): Waiters {
  const deadlines = new Map(layout.queueTimeouts.entries);
  const ids = layout.queue.type === 'list' ? layout.queue.entries : layout.queueTimeouts.entries.map(([id]) => id);
  const queued = ids.map((id, index): QueuedWaiter => {
    const deadline = deadlines.get(id);
    return { id, position: index + 1, timeoutMs: deadline === undefined ? 0 : Math.max(0, deadline - layout.serverTimeMs) };
  });
  const queuedCount = layout.queue.type === 'list' ? layout.queue.size : layout.queueTimeouts.size;
  return { queued, queuedCount, subscribedClients };
}

/** rxlock's waiters of a lock, by arrival, with how long each has waited (their score is the server's clock in µs when they joined). */
function lockWaiters(layout: RawLayout, subscribedClients: number): Waiters {
  const queued = layout.waiters.entries.map(([member, sinceMicros], index): QueuedWaiter => ({
    id: memberField(member),
    position: index + 1,
    waitedMs: Math.max(0, layout.serverTimeMs - Math.floor(sinceMicros / 1000)),
  }));
  return { queued, queuedCount: layout.waiters.size, subscribedClients };
}

/** rxlock's reservation `<member>|<until ms>`, while it lasts, for the member's field. */
function handoffOf(layout: RawLayout): LockLike['handoff'] {
  const bar = layout.handoff?.lastIndexOf('|') ?? -1;
  if (layout.handoff === undefined || bar === -1) return null;
  const remainingMs = Number(layout.handoff.slice(bar + 1)) - layout.serverTimeMs;
  return Number.isFinite(remainingMs) && remainingMs > 0 ? { for: memberField(layout.handoff.slice(0, bar)), remainingMs } : null;
}

/**
 * A semaphore and a latch both store an integer string, so the rest of the layout decides: rxlock's
 * semaphores keep their holders (`rxlock_holds`) while they have some; a count of 0 or less is a
 * semaphore's (a latch is deleted when it reaches 0); subscribers on only one of the two channels tell
 * whose waiters they are. Only what is left is settled by `--kind` (semaphore, leasedSemaphore or latch:
 * a semaphore with leased permits but none leased right now looks the same); else it stays `semaphoreOrLatch`.
 */
function stringKind(layout: RawLayout, count: number, semaphoreClients: number, latchClients: number, kinds: ReadonlySet<ObjectKind> | undefined): ObjectKind {
  if (layout.holdsType === 'hash' || count <= 0) return 'semaphore';
  if (semaphoreClients > 0 && latchClients === 0) return 'semaphore';
  if (latchClients > 0 && semaphoreClients === 0) return 'latch';
  const hinted = STRING_KINDS.filter((kind) => kinds?.has(kind) === true);
  return hinted.length === 1 && hinted[0] !== undefined ? hinted[0] : 'semaphoreOrLatch';
}
