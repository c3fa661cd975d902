import type { LockObject } from '../inspect/LockObject.js';
import type { Colors } from './Colors.js';
import { capLines, formatDuration, plural } from './format.js';

/** The STATE cell: what the object is doing, in words. */
export function stateOf(object: LockObject, c: Colors): string {
  switch (object.kind) {
    case 'lock':
    case 'fairLock': {
      const lines = [object.holders.length > 0 ? c.red('held') : c.green('free')];
      if (object.holders.length === 0 && object.handoff !== null)
        lines.push(`reserved ${formatDuration(object.handoff.remainingMs)}\nfor ${object.handoff.for}`);
      if (object.fencingToken !== null) lines.push(`token ${object.fencingToken}`);
      return lines.join('\n');
    }
    case 'readWriteLock':
      return object.mode === 'write' ? c.red('write-locked') : c.yellow('read-locked');
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
export function holdersOf(object: LockObject, c: Colors): string {
  if (object.holders.length === 0) return c.dim('–');
  const lines = object.holders.map((holder) => {
    const role = holder.role === undefined ? '' : holder.role === 'writer' ? 'W ' : 'R ';
    const count = object.kind === 'leasedSemaphore' ? '' : ` ×${holder.holds}`;
    const own = holder.ttlMs === undefined ? '' : c.dim(holder.ttlMs === null ? ' no lease' : ` ${formatDuration(holder.ttlMs)}`);
    return `${role}${holder.id}${count}${own}`;
  });
  return capLines(lines).join('\n');
}

/** The WAITERS cell: queued waiters in order (how long each waited, or when a fair lock drops it), then subscribed clients. */
export function waitersOf(object: LockObject, c: Colors): string {
  const { queued, queuedCount, subscribedClients } = object.waiters;
  if (queuedCount === 0 && subscribedClients === 0) return c.dim('–');
  const lines: string[] = [];
  if (queuedCount > 0) {
    const entries = queued.map((waiter) => {
      const detail = waiter.waitedMs !== undefined ? `waiting ${formatDuration(waiter.waitedMs)}` : `drops in at most ${formatDuration(waiter.timeoutMs ?? 0)}`;
      return `${waiter.position}. ${waiter.id} ${c.dim(detail)}`;
    });
    if (queuedCount > queued.length) entries.push(`… and ${queuedCount - queued.length} more`);
    lines.push(c.yellow(`${queuedCount} queued`), ...capLines(entries));
  }
  if (subscribedClients > 0) lines.push(c.yellow(`${plural(subscribedClients, 'client')} subscribed`));
  return lines.join('\n');
}

export function ttlOf(object: LockObject, c: Colors): string {
  if (object.ttlMs === null) {
    const keyless = object.kind === 'fencingCounter' || ((object.kind === 'lock' || object.kind === 'fairLock') && object.holders.length === 0);
    return keyless ? c.dim('–') : '∞';
  }
  return object.ttlMs < 5_000 ? c.yellow(formatDuration(object.ttlMs)) : formatDuration(object.ttlMs);
}
