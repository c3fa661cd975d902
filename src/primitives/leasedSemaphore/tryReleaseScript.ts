import { defineScript, int } from '../../store/Script.js';
import { luaRecallOp, recallOp } from '../semaphore/recallOp.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW, LUA_UNHEX, unhex } from './permitIds.js';
import { LUA_RECLAIM, reclaim } from './reclaim.js';

/**
 * KEYS: count, timeouts, channel, ops. ARGV: op id, publish command, permit id (hex) for each permit.
 *
 * Redisson's `tryRelease(List)`: all or nothing. When any id is not held with its lease running, answers 0
 * and changes nothing; else reclaims expired permits, gives these back, publishes the new count and answers
 * how many it gave back. Redisson publishes that number rather than the count; both wake waiters, and the
 * count tells them how many may go. The op id makes a re-sent copy answer the same (it would find them gone).
 */
export const tryReleaseScript = defineScript<number>({
  name: 'leasedSemaphore.tryRelease',
  lua: `
${LUA_CHECK_TYPES}
${luaRecallOp('KEYS[4]', 'ARGV[1]')}
${LUA_NOW}
${LUA_UNHEX}
local publish = ARGV[2]
local members = {}
for i = 3, #ARGV do
  local member = unhex(ARGV[i])
  local score = redis.call('zscore', KEYS[2], member)
  if not score or tonumber(score) <= now then
    return remember(0)
  end
  members[#members + 1] = member
end
${LUA_RECLAIM}
local removed = 0
for _, member in ipairs(members) do removed = removed + redis.call('zrem', KEYS[2], member) end
local value = redis.call('incrby', KEYS[1], removed)
redis.call(publish, KEYS[3], value)
return remember(removed)
`,
  memory: (db, [count = '', timeouts = '', channel = '', ops = ''], [opId = '', , ...ids]) => {
    checkTypes(db, count, timeouts);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    const now = db.time();
    const members = ids.map(unhex);
    if (!members.every((member) => (db.zscore(timeouts, member) ?? -Infinity) > now)) return op.remember(0);
    reclaim(db, count, timeouts, channel);
    let removed = 0;
    for (const member of members) removed += db.zrem(timeouts, member);
    const value = db.incrby(count, removed);
    db.publish(channel, String(value));
    return op.remember(removed);
  },
  parse: int,
});
