import type { LockObject } from '../inspect/LockObject.js';
import type { Colors } from './Colors.js';
import { capLines, formatDuration, plural } from './format.js';
import type { ShortenId } from './shortIds.js';

const whole: ShortenId = (id) => id;

/**
 * A held lock nobody waits for, which may as well be a fair lock. A fair lock keeps its line in
 * `redisson_lock_queue:{name}` and `redisson_lock_timeout:{name}`, which Redis deletes with their last waiter:
 * then it is the same hash as a lock. Waiters of a lock (rxlock's, a hand-off reservation, clients subscribed
 * to its channel) say it is a lock.
 */
export function mayBeFair(object: LockObject): boolean {
  if (object.kind !== 'lock' || object.holders.length === 0) return false;
  return object.waiters.queuedCount === 0 && object.waiters.subscribedClients === 0 && object.handoff === null;
}

/** The KIND cell: the kind, marked `*` where Redis cannot tell a lock from a fair lock (see `MAY_BE_FAIR_NOTE`). */
export function kindOf(object: LockObject): string {
  return mayBeFair(object) ? `${object.kind}*` : object.kind;
}

/** The footnote under a table with a `lock*` in it. */
export const MAY_BE_FAIR_NOTE = '* a lock, or a fair lock with nobody queued: Redis stores both alike';

/**
 * The STATE cell: what the object is doing, in words. A lock's fencing counter (`redisson_lock_token:{name}`)
 * belongs to the name, not to the hold: it is shown as the last token drawn, which is the holder's token only
 * if the holder asked for fencing (Redis does not record whether it did).
 */
export function stateOf(object: LockObject, c: Colors, shorten: ShortenId = whole): string {
  switch (object.kind) {
    case 'lock':
    case 'fairLock': {
      const lines = [object.holders.length > 0 ? c.red('held') : c.green('free')];
      if (object.holders.length === 0 && object.handoff !== null)
        lines.push(`reserved ${formatDuration(object.handoff.remainingMs)}\nfor ${shorten(object.handoff.for)}`);
      if (object.fencingToken !== null) lines.push(c.dim(`last token ${object.fencingToken}`));
      return lines.join('\n');
    }
    case 'readWriteLock':
      return object.mode === 'write' ? c.red('write-locked') : c.yellow('read-locked');
    case 'groupLock':
      return object.values > 0 ? c.red(`${plural(object.values, 'value')} locked`) : c.green('free');
    case 'semaphore':
      return `${plural(object.permits, 'permit')} free`;
    case 'leasedSemaphore':
      return `${plural(object.permits, 'permit')} free\n${object.holders.length} leased`;
    case 'latch':
      return `count ${object.count}`;
    case 'fencingCounter':
      return `not held\nlast token ${object.token}`;
    case 'semaphoreOrLatch':
      return `value ${object.value}\n${c.dim('semaphore or latch? see --kind')}`;
  }
}

/** The HOLDERS cell: one line per holder with its hold count (and its own TTL where it has one). */
export function holdersOf(object: LockObject, c: Colors, shorten: ShortenId = whole): string {
  if (object.holders.length === 0) return c.dim('–');
  const lines = object.holders.map((holder) => {
    const role = holder.role === undefined ? '' : holder.role === 'writer' ? 'W ' : 'R ';
    const count = object.kind === 'leasedSemaphore' ? '' : ` ×${holder.holds}`;
    const own = holder.ttlMs === undefined ? '' : c.dim(holder.ttlMs === null ? ' no lease' : ` ${formatDuration(holder.ttlMs)}`);
    return `${role}${shorten(holder.id)}${count}${own}`;
  });
  return capLines(lines).join('\n');
}

/** The WAITERS cell: queued waiters in order (how long each waited, or when a fair lock drops it), then subscribed clients. */
export function waitersOf(object: LockObject, c: Colors, shorten: ShortenId = whole): string {
  const { queued, queuedCount, subscribedClients } = object.waiters;
  if (queuedCount === 0 && subscribedClients === 0) return c.dim('–');
  const lines: string[] = [];
  if (queuedCount > 0) {
    const entries = queued.map((waiter) => {
      const detail = waiter.waitedMs !== undefined ? `waiting ${formatDuration(waiter.waitedMs)}` : `drops in at most ${formatDuration(waiter.timeoutMs ?? 0)}`;
      return `${waiter.position}. ${shorten(waiter.id)} ${c.dim(detail)}`;
    });
    if (queuedCount > queued.length) entries.push(`… and ${queuedCount - queued.length} more`);
    lines.push(c.yellow(`${queuedCount} queued`), ...capLines(entries));
  }
  if (subscribedClients > 0) lines.push(c.yellow(`${plural(subscribedClients, 'client')} subscribed`));
  return lines.join('\n');
}

/** The TTL cell: the main key's time to live; `∞` for a key without expiry, `–` where there is no key. */
export function ttlOf(object: LockObject, c: Colors): string {
  if (object.ttlMs === null) {
    const keyless = object.kind === 'fencingCounter' || ((object.kind === 'lock' || object.kind === 'fairLock') && object.holders.length === 0);
    return keyless ? c.dim('–') : '∞';
  }
  return object.ttlMs < 5_000 ? c.yellow(formatDuration(object.ttlMs)) : formatDuration(object.ttlMs);
}
