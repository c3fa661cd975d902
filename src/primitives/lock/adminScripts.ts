import { defineScript, int, list, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { LUA_RESERVE_FOR_HEAD, reserveForHead } from './releaseScript.js';
import { LUA_NOW } from './serverTime.js';

/** What a lock key holds right now: whether it exists, its PTTL, and one field's hold count (all fields' when no field is given). */
export interface LockState {
  readonly exists: boolean;
  readonly ttl: number;
  readonly holdCount: number;
}

/** KEYS: lock. ARGV: field ('' for none). Read-only; a key of another type is an error naming it. */
export const lockInspectScript = defineScript<LockState>({
  name: 'lock.inspect',
  lua: `
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'hash' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
local count = 0
if ARGV[1] ~= '' then
  count = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '0')
else
  for _, value in ipairs(redis.call('hvals', KEYS[1])) do count = count + (tonumber(value) or 0) end
end
return {redis.call('exists', KEYS[1]), redis.call('pttl', KEYS[1]), count}
`,
  memory: (db, [lock = ''], [field = '']) => {
    const kind = db.type(lock);
    if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    const count = field === '' ? db.hkeys(lock).reduce((sum, key) => sum + (Number(db.hget(lock, key)) || 0), 0) : Number(db.hget(lock, field) ?? '0');
    return [db.exists(lock), db.pttl(lock), count];
  },
  parse: (reply) => {
    const [exists, ttl, count] = list(reply).map(int);
    return { exists: exists === 1, ttl: ttl ?? -2, holdCount: count ?? 0 };
  },
});

/**
 * KEYS: lock, holds, channel, handoff, waiters. ARGV: publish command, handoffMs.
 * Deletes the lock whoever holds it and wakes a waiter, as Redisson's forceUnlock. 1 if there was a lock.
 */
export const lockForceUnlockScript = defineScript<boolean>({
  name: 'lock.forceUnlock',
  lua: `
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'hash' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
redis.call('del', KEYS[2], KEYS[4])
if redis.call('del', KEYS[1]) > 0 then
  ${LUA_NOW}
  ${LUA_RESERVE_FOR_HEAD}
  redis.call(ARGV[1], KEYS[3], reserveForHead(KEYS[4], KEYS[5], tonumber(ARGV[2])))
  return 1
end
return 0
`,
  memory: (db, [lock = '', holds = '', channel = '', handoff = '', waiters = ''], [, handoffMs = '0']) => {
    const kind = db.type(lock);
    if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    db.del(holds, handoff);
    if (db.del(lock) > 0) {
      db.publish(channel, reserveForHead(db, handoff, waiters, Number(handoffMs)));
      return 1;
    }
    return 0;
  },
  parse: (reply) => int(reply) === 1,
});
