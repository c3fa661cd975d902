import { defineScript, int, list, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { handOn, handOnKeys, LUA_HAND_ON } from './handOn.js';
import { lockKind, LUA_LOCK_KIND, parseForceUnlock, type ForceUnlockReply } from './lockKind.js';

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
  count = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '0') or 0
else
  for _, value in ipairs(redis.call('hvals', KEYS[1])) do count = count + (tonumber(value) or 0) end
end
return {redis.call('exists', KEYS[1]), redis.call('pttl', KEYS[1]), count}
`,
  memory: (db, [lock = ''], [field = '']) => {
    const kind = db.type(lock);
    if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    const count = field === '' ? db.hkeys(lock).reduce((sum, key) => sum + (Number(db.hget(lock, key)) || 0), 0) : Number(db.hget(lock, field) ?? '0') || 0;
    // Redis turns a Lua number into an integer reply by dropping its fraction.
    return [db.exists(lock), db.pttl(lock), Math.trunc(count)];
  },
  parse: (reply) => {
    const [exists, ttl, count] = list(reply).map(int);
    return { exists: exists === 1, ttl: ttl ?? -2, holdCount: count ?? 0 };
  },
});

/**
 * KEYS: the release keys (lock, channel, waiters, handoff, holds, token), then the fair line's queue and
 * timeouts. ARGV: publish command, handoffMs.
 * Deletes the lock whoever holds it and hands it on as an unlock does (`LUA_HAND_ON`), as Redisson's
 * forceUnlock wakes a waiter. 1 if there was a lock; the kind's name, changing nothing, when it is a fair or
 * read-write lock (`lockKind`), whose own script unlocks it.
 */
export const lockForceUnlockScript = defineScript<ForceUnlockReply>({
  name: 'lock.forceUnlock',
  lua: `
${LUA_LOCK_KIND}
local kind = lockKind(KEYS[1], KEYS[7], KEYS[8])
if kind and kind ~= 'lock' then return kind end
${LUA_HAND_ON}
redis.call('del', KEYS[5], KEYS[4])
if redis.call('del', KEYS[1]) > 0 then
  handOn(nextWaiter(tonumber(ARGV[2])), tonumber(ARGV[2]), ARGV[1])
  return 1
end
return 0
`,
  memory: (db, keys, [, handoffMs = '0']) => {
    const named = handOnKeys(keys);
    const kind = lockKind(db, named.lock, keys[6] ?? '', keys[7] ?? '');
    if (kind !== undefined && kind !== 'lock') return kind;
    db.del(named.holds, named.handoff);
    if (db.del(named.lock) > 0) {
      handOn(db, named, Number(handoffMs));
      return 1;
    }
    return 0;
  },
  parse: parseForceUnlock,
});
