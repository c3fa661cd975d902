import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, list, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { FOREIGN_HASH } from '../../store/wrongType.js';
import { countFieldOf, expiryFieldOf } from './groupLockKeys.js';

/** Granted, or refused with the time until the latest expiry among the values held by others (the fallback wake-up). */
export type GroupAttempt = { readonly granted: true } | { readonly granted: false; readonly retryInMs: number };

/** Lua: `now`, the server's clock in ms: every expiry in the group hash is on it, so client clocks never matter. */
export const LUA_GROUP_NOW = `local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * KEYS: group hash, holds. ARGV: leaseMs, `<clientId>:<owner>`, holdId ('' for an owner that never re-enters),
 * then the values' fields.
 *
 * Redisson's RedissonFasterMultiLock acquire (`tryLockInnerAsync`), all values or none, on the server's clock:
 * refused, with the time until the latest of their expiries, while any value is held by another owner whose
 * expiry is still ahead; else every value is set to this owner with its expiry `leaseMs` from now (never
 * shortened) and one more hold, and the hash lives at least `leaseMs`. Unlike Redisson's, a value taken over
 * from an owner whose hold expired loses that owner's fields, and an expired hold of this owner's starts again
 * at one hold instead of adding to the count it left. A hold that is already granted answers granted again
 * without counting twice (a re-sent acquire). A key of another type, or a read-write lock's hash, is refused.
 */
export const groupAcquireScript = defineScript<GroupAttempt>({
  name: 'groupLock.acquire',
  lua: `
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'hash' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
if kind == 'hash' and redis.call('hexists', KEYS[1], 'mode') == 1 then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ${FOREIGN_HASH}')
end
local hold = ARGV[3]
if hold ~= '' then
  local holdsKind = redis.call('type', KEYS[2])['ok']
  if holdsKind ~= 'none' and holdsKind ~= 'hash' then
    return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[2] .. ' ' .. holdsKind)
  end
  if redis.call('hexists', KEYS[2], hold) == 1 then
    return {1, 0}
  end
end
${LUA_GROUP_NOW}
local lease = tonumber(ARGV[1])
local me = ARGV[2]
local latest, mine = -1, 0
for i = 4, #ARGV do
  local owner = redis.call('hget', KEYS[1], ARGV[i])
  if owner then
    local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. owner .. ':expire_time'))
    if expiry ~= nil and expiry > now then
      if owner == me then
        mine = mine + 1
      elseif expiry > latest then
        latest = expiry
      end
    end
  end
end
if latest ~= -1 then
  return {0, latest - now}
end
if hold == '' and mine == #ARGV - 3 then
  return {1, 0}
end
for i = 4, #ARGV do
  local value = ARGV[i]
  local owner = redis.call('hget', KEYS[1], value)
  if owner and owner ~= me then
    redis.call('hdel', KEYS[1], value .. ':' .. owner .. ':expire_time', value .. ':' .. owner .. ':lock_count')
  end
  redis.call('hset', KEYS[1], value, me)
  local expiryField, countField = value .. ':' .. me .. ':expire_time', value .. ':' .. me .. ':lock_count'
  local expiry = tonumber(redis.call('hget', KEYS[1], expiryField))
  if owner == me and expiry ~= nil and expiry > now then
    redis.call('hincrby', KEYS[1], countField, 1)
    if expiry < now + lease then redis.call('hset', KEYS[1], expiryField, now + lease) end
  else
    redis.call('hset', KEYS[1], countField, 1)
    redis.call('hset', KEYS[1], expiryField, now + lease)
  end
end
local ttl = redis.call('pttl', KEYS[1])
if kind == 'none' or (ttl > 0 and ttl < lease) then
  redis.call('pexpire', KEYS[1], lease)
  ttl = lease
end
if hold ~= '' then
  redis.call('hset', KEYS[2], hold, 1)
  if ttl > 0 then redis.call('pexpire', KEYS[2], ttl) end
end
return {1, 0}
`,
  memory: (db: MemoryDb, [lock = '', holds = ''], [leaseArg = '', me = '', hold = '', ...values]) => {
    const kind = db.type(lock);
    if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    if (kind === 'hash' && db.hexists(lock, 'mode') === 1) throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${FOREIGN_HASH}`);
    if (hold !== '') {
      const holdsKind = db.type(holds);
      if (holdsKind !== 'none' && holdsKind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${holds} ${holdsKind}`);
      if (db.hexists(holds, hold) === 1) return [1, 0];
    }
    const now = db.time();
    const lease = Number(leaseArg);
    let latest = -1;
    let mine = 0;
    for (const value of values) {
      const owner = db.hget(lock, value);
      if (owner === null) continue;
      const expiry = numberOf(db.hget(lock, expiryFieldOf(value, owner)));
      if (expiry === undefined || expiry <= now) continue;
      if (owner === me) mine++;
      else if (expiry > latest) latest = expiry;
    }
    if (latest !== -1) return [0, latest - now];
    if (hold === '' && mine === values.length) return [1, 0];
    for (const value of values) {
      const owner = db.hget(lock, value);
      if (owner !== null && owner !== me) {
        db.hdel(lock, expiryFieldOf(value, owner));
        db.hdel(lock, countFieldOf(value, owner));
      }
      db.hset(lock, value, me);
      const expiryField = expiryFieldOf(value, me);
      const countField = countFieldOf(value, me);
      const expiry = numberOf(db.hget(lock, expiryField));
      if (owner === me && expiry !== undefined && expiry > now) {
        db.hincrby(lock, countField, 1);
        if (expiry < now + lease) db.hset(lock, expiryField, String(now + lease));
      } else {
        db.hset(lock, countField, '1');
        db.hset(lock, expiryField, String(now + lease));
      }
    }
    let ttl = db.pttl(lock);
    if (kind === 'none' || (ttl > 0 && ttl < lease)) {
      db.pexpire(lock, lease);
      ttl = lease;
    }
    if (hold !== '') {
      db.hset(holds, hold, '1');
      if (ttl > 0) db.pexpire(holds, ttl);
    }
    return [1, 0];
  },
  parse: (reply) => {
    const [granted, retryInMs] = list(reply);
    return int(granted ?? 0) === 1 ? { granted: true } : { granted: false, retryInMs: int(retryInMs ?? -1) };
  },
});

/** Lua's `tonumber` of a hash value, as the memory twins read expiries and counts (undefined where Lua's is nil). */
export function numberOf(raw: string | null): number | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}
