import type { ReleaseReply } from '../../engine/Hold.js';
import { defineScript, int, type Script } from '../../store/Script.js';
import { checkedCall, LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { HANDED_OVER, handedOver } from '../handedOver.js';
import { handOn, handOnKeys, LUA_HAND_ON, releaseOne } from './handOn.js';
import { memberField, parseWaiterMember } from './waiterMember.js';

/**
 * 0: not held by this owner (nothing changed); 1: one hold released, others remain; 2: unlocked; 3
 * (`HANDED_OVER`): unlocked and given straight to a waiter.
 */
export type LockRelease = 0 | 1 | 2 | 3;

/**
 * KEYS: lock, channel, waiters, handoff, holds, token (see `LockKeys.releaseKeys`).
 * ARGV: field, handoffMs, publish command (publish/spublish), then holdId (only for a reentrant owner).
 *
 * Checks ownership before writing anything; a release sent twice answers 0 the second time. The first
 * write of a partial release is a PEXPIRE, which needs no memory, so Redis lets the decrement through even
 * when it is out of memory. The final unlock deletes the key and hands the lock on (see `LUA_HAND_ON`):
 * directly to the longest-waiting rxlock waiter whose client listens (answering `HANDED_OVER`, which the
 * Redis store delivers after the input already read: see `Script.handsOver`), else by a reservation for it,
 * else with Redisson's `0`.
 */
export const lockReleaseScript = defineScript<LockRelease>({
  name: 'lock.release',
  lua: `
local count = redis.pcall('hget', KEYS[1], ARGV[1])
if type(count) ~= 'string' then
  return 0
end
local hold = ARGV[4] or '-'
if hold ~= '-' then
  -- Only a reentrant owner's release sets this up: a holds key of another type is named, and nothing changes.
  ${LUA_CHECKED_CALL}
  if checkedCall(KEYS[5], 'hdel', hold) == 0 then return 0 end
end
local handoff = tonumber(ARGV[2])
-- The final unlock pops the longest waiter at once; with nobody queued (the common case) it is answered
-- before the helper functions are set up.
local head = nil
if count == '1' then
  if hold ~= '-' then redis.call('del', KEYS[1], KEYS[5]) else redis.call('del', KEYS[1]) end
  -- pcall: a waiters key of another type (which acquires report) must not stop a release half done.
  if handoff > 0 then head = redis.pcall('zpopmin', KEYS[3]) end
  if not (head and head[1]) then
    redis.call(ARGV[3], KEYS[2], '0')
    return 2
  end
end
${LUA_HAND_ON}
if head then
  if handOn(head, handoff, ARGV[3]) then return ${HANDED_OVER} end
  return 2
end
return releaseOne(ARGV[1], count, hold, handoff, ARGV[3])
`,
  memory: (db, keys, [field = '', handoffMs = '0', , hold = '-']) => {
    const named = handOnKeys(keys);
    if (db.type(named.lock) !== 'hash' || db.hexists(named.lock, field) === 0) return 0;
    if (hold !== '-' && checkedCall(db, named.holds, () => db.hdel(named.holds, hold)) === 0) return 0;
    return releaseOne(db, named, field, db.hget(named.lock, field) ?? '1', hold, Number(handoffMs));
  },
  parse: (reply) => int(reply) as LockRelease,
  handsOver: handedOver,
});

/** The same script, its reply read the way a lease's release needs it. */
export const lockLeaseReleaseScript: Script<ReleaseReply> = { ...lockReleaseScript, parse: (reply) => (int(reply) === 0 ? 'not-held' : 'released') };

/**
 * KEYS: the release keys. ARGV: the waiter's member (see `waiterMember`), handoffMs, publish command.
 *
 * A waiter gives up, or its client hears of a hand-off to a waiter that is no longer there: it leaves the
 * queue; a direct hand-off that reached it is released (which hands the lock on), and a reservation made for
 * it passes on. Only what was this waiter's is touched: for an owner that never re-enters its field is its
 * own, a reentrant owner's hold is known by its hold id. Sent twice, the second run changes nothing.
 * 0: nothing of the waiter's was held; 1: one hold released, others remain; 2: unlocked and handed on; 3
 * (`HANDED_OVER`): unlocked and given straight to the next waiter.
 */
export const lockLeaveScript = defineScript<LockRelease>({
  name: 'lock.leave',
  lua: `
${LUA_CHECKED_CALL}
${LUA_HAND_ON}
local member = ARGV[1]
redis.call('zrem', KEYS[3], member)
local field, _, _, hold = parseMember(member)
if not field then field, hold = member, '-' end
local count = redis.pcall('hget', KEYS[1], field)
if type(count) == 'string' and (hold == '-' or checkedCall(KEYS[5], 'hdel', hold) == 1) then
  return releaseOne(field, count, hold, tonumber(ARGV[2]), ARGV[3])
end
local reservation = redis.call('get', KEYS[4])
if reservation and string.sub(reservation, 1, #member + 1) == member .. '|' then
  redis.call('del', KEYS[4])
  if redis.call('exists', KEYS[1]) == 0 then handOn(nextWaiter(tonumber(ARGV[2])), tonumber(ARGV[2]), ARGV[3]) end
end
return 0
`,
  memory: (db, keys, [member = '', handoffMs = '0']) => {
    const named = handOnKeys(keys);
    const handoff = Number(handoffMs);
    db.zrem(named.waiters, member);
    const field = memberField(member);
    const hold = parseWaiterMember(member)?.holdId ?? '-';
    const count = db.type(named.lock) === 'hash' ? db.hget(named.lock, field) : null;
    if (count !== null && (hold === '-' || checkedCall(db, named.holds, () => db.hdel(named.holds, hold)) === 1))
      return releaseOne(db, named, field, count, hold, handoff);
    if (db.get(named.handoff)?.startsWith(`${member}|`) === true) {
      db.del(named.handoff);
      if (db.exists(named.lock) === 0) handOn(db, named, handoff);
    }
    return 0;
  },
  parse: (reply) => int(reply) as LockRelease,
  handsOver: handedOver,
});
