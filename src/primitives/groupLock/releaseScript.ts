import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int } from '../../store/Script.js';
import { checkedCall, LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { LUA_GROUP_NOW, numberOf } from './acquireScript.js';
import { countFieldOf, expiryFieldOf } from './groupLockKeys.js';

/**
 * What a release publishes: Redisson's `READ_UNLOCK_MESSAGE`, which wakes every waiter of each Redisson client
 * (and of each rxlock one). Redisson's own release publishes `0`, which wakes one per client: waiters of one
 * group wait for different values, and the one woken may not be the one whose values were freed.
 */
export const GROUP_RELEASED = '1';

/**
 * KEYS: group hash, channel, holds. ARGV: `<clientId>:<owner>`, holdId ('' for an owner that never re-enters),
 * publish command, leaseMs, then the values' fields.
 *
 * Redisson's RedissonFasterMultiLock unlock, owner-checked value by value: each value still this owner's loses
 * one hold; at its last one its three fields go (a reentrant one left keeps an expiry of at least `leaseMs`
 * from now, as Redisson's). Values another owner took are left alone. 1 when every value was this owner's with
 * its hold running; 0 when some were not (lost), the rest being released all the same, so that a repeated
 * release changes nothing. `1` is published when a value was freed. The first write (PEXPIRE) needs no memory.
 */
export const groupReleaseScript = defineScript<0 | 1>({
  name: 'groupLock.release',
  lua: `
${LUA_CHECKED_CALL}
if redis.call('type', KEYS[1])['ok'] ~= 'hash' then
  return 0
end
if ARGV[2] ~= '' and checkedCall(KEYS[3], 'hdel', ARGV[2]) == 0 then
  return 0
end
${LUA_GROUP_NOW}
local me, lease = ARGV[1], tonumber(ARGV[4])
local ttl = redis.call('pttl', KEYS[1])
if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
local clean, freed = 1, 0
for i = 5, #ARGV do
  local value = ARGV[i]
  if redis.call('hget', KEYS[1], value) == me then
    local expiryField, countField = value .. ':' .. me .. ':expire_time', value .. ':' .. me .. ':lock_count'
    local expiry = tonumber(redis.call('hget', KEYS[1], expiryField))
    local live = expiry ~= nil and expiry > now
    if not live then clean = 0 end
    local count = tonumber(redis.call('hget', KEYS[1], countField))
    if live and count ~= nil and count > 1 then
      redis.call('hincrby', KEYS[1], countField, -1)
      if expiry < now + lease then redis.call('hset', KEYS[1], expiryField, now + lease) end
    else
      redis.call('hdel', KEYS[1], value, expiryField, countField)
      freed = freed + 1
    end
  else
    clean = 0
  end
end
if freed > 0 then
  redis.call(ARGV[3], KEYS[2], '${GROUP_RELEASED}')
  if redis.call('exists', KEYS[1]) == 0 then redis.call('del', KEYS[3]) end
end
return clean
`,
  memory: (db: MemoryDb, [lock = '', channel = '', holds = ''], [me = '', hold = '', , leaseArg = '', ...values]) => {
    if (db.type(lock) !== 'hash') return 0;
    if (hold !== '' && checkedCall(db, holds, () => db.hdel(holds, hold)) === 0) return 0;
    const now = db.time();
    const lease = Number(leaseArg);
    let clean = 1;
    let freed = 0;
    for (const value of values) {
      if (db.hget(lock, value) !== me) {
        clean = 0;
        continue;
      }
      const expiryField = expiryFieldOf(value, me);
      const countField = countFieldOf(value, me);
      const expiry = numberOf(db.hget(lock, expiryField));
      const live = expiry !== undefined && expiry > now;
      if (!live) clean = 0;
      const count = numberOf(db.hget(lock, countField));
      if (live && count !== undefined && count > 1) {
        db.hincrby(lock, countField, -1);
        if (expiry < now + lease) db.hset(lock, expiryField, String(now + lease));
      } else {
        db.hdel(lock, value);
        db.hdel(lock, expiryField);
        db.hdel(lock, countField);
        freed++;
      }
    }
    if (freed > 0) {
      db.publish(channel, GROUP_RELEASED);
      if (db.exists(lock) === 0) db.del(holds);
    }
    return clean;
  },
  parse: (reply) => (int(reply) === 1 ? 1 : 0),
});
