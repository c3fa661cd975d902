import type { ReleaseReply } from '../../engine/HeldLease.js';
import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, type Script } from '../../store/Script.js';
import { LUA_NOW } from './serverTime.js';

/** 0: not held by this owner (nothing changed); 1: one hold released, others remain; 2: unlocked. */
export type LockRelease = 0 | 1 | 2;

/**
 * Lua: reserve the unlocked lock for the longest-waiting waiter, if any (needs `now`), and return what
 * to publish: that waiter's ticket, so that only its client tries, or Redisson's `0` when no rxlock
 * waiter is queued. Redisson's subscribers read the message as a number and act on 0 and 1 only.
 */
export const LUA_RESERVE_FOR_HEAD = `
local function reserveForHead(handoffKey, waitersKey, handoff)
  if handoff <= 0 then return '0' end
  local head = redis.call('zrange', waitersKey, 0, 0, 'WITHSCORES')
  if not head[1] then return '0' end
  redis.call('set', handoffKey, head[1] .. '|' .. (now + handoff), 'PX', 2 * handoff)
  return head[2]
end`;

/** The memory twin of `reserveForHead`. */
export function reserveForHead(db: MemoryDb, handoffKey: string, waitersKey: string, handoff: number): string {
  if (handoff <= 0) return '0';
  const head = db.zrangeWithScores(waitersKey)[0];
  if (head === undefined) return '0';
  db.set(handoffKey, `${head[0]}|${db.time() + handoff}`, { px: 2 * handoff });
  return String(head[1]);
}

/**
 * KEYS: lock, channel, waiters, handoff, then holds (only for a reentrant owner).
 * ARGV: field, handoffMs, publish command (publish/spublish), then holdId (only for a reentrant owner).
 *
 * Checks ownership before writing anything; a release sent twice answers 0 the second time. The first
 * write of a partial release is a PEXPIRE, which needs no memory, so Redis lets the decrement through even
 * when it is out of memory. The final unlock deletes the key, reserves the lock for the longest-waiting
 * rxlock waiter for `handoffMs`, and publishes Redisson's `0`.
 */
export const lockReleaseScript = defineScript<LockRelease>({
  name: 'lock.release',
  lua: `
local count = redis.pcall('hget', KEYS[1], ARGV[1])
if type(count) ~= 'string' then
  return 0
end
if ARGV[4] and redis.call('hdel', KEYS[5], ARGV[4]) == 0 then
  return 0
end
if tonumber(count) > 1 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
  redis.call('hincrby', KEYS[1], ARGV[1], -1)
  return 1
end
if ARGV[4] then redis.call('del', KEYS[1], KEYS[5]) else redis.call('del', KEYS[1]) end
local message = '0'
if tonumber(ARGV[2]) > 0 and redis.call('zcard', KEYS[3]) > 0 then
  ${LUA_NOW}
  ${LUA_RESERVE_FOR_HEAD}
  message = reserveForHead(KEYS[4], KEYS[3], tonumber(ARGV[2]))
end
redis.call(ARGV[3], KEYS[2], message)
return 2
`,
  memory: (db, [lock = '', channel = '', waiters = '', handoff = '', holds = ''], [field = '', handoffMs = '0', , hold]) => {
    if (db.type(lock) !== 'hash' || db.hexists(lock, field) === 0) return 0;
    if (hold !== undefined && db.hdel(holds, hold) === 0) return 0;
    const count = Number(db.hget(lock, field));
    if (count > 1) {
      db.hincrby(lock, field, -1);
      return 1;
    }
    db.del(lock, holds);
    db.publish(channel, Number(handoffMs) > 0 && db.zcard(waiters) > 0 ? reserveForHead(db, handoff, waiters, Number(handoffMs)) : '0');
    return 2;
  },
  parse: (reply) => int(reply) as LockRelease,
});

/** The same script, its reply read the way a lease's release needs it. */
export const lockLeaseReleaseScript: Script<ReleaseReply> = { ...lockReleaseScript, parse: (reply) => (int(reply) === 0 ? 'not-held' : 'released') };

/**
 * KEYS: lock, handoff, waiters, channel. ARGV: field, handoffMs, publish command.
 * A waiter gives up: it leaves the queue, and if the lock was reserved for it, the reservation passes on.
 */
export const lockLeaveScript = defineScript<number>({
  name: 'lock.leave',
  lua: `
redis.call('zrem', KEYS[3], ARGV[1])
local reservation = redis.call('get', KEYS[2])
if reservation and string.sub(reservation, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then
  redis.call('del', KEYS[2])
  if redis.call('exists', KEYS[1]) == 0 then
    ${LUA_NOW}
    ${LUA_RESERVE_FOR_HEAD}
    redis.call(ARGV[3], KEYS[4], reserveForHead(KEYS[2], KEYS[3], tonumber(ARGV[2])))
  end
end
return 1
`,
  memory: (db, [lock = '', handoff = '', waiters = '', channel = ''], [field = '', handoffMs = '0']) => {
    db.zrem(waiters, field);
    const reservation = db.get(handoff);
    if (reservation?.startsWith(`${field}|`) === true) {
      db.del(handoff);
      if (db.exists(lock) === 0) db.publish(channel, reserveForHead(db, handoff, waiters, Number(handoffMs)));
    }
    return 1;
  },
  parse: int,
});
