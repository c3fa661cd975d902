import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript } from '../../store/Script.js';
import { checkedCall, LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { parseReadWriteRelease, type ReadWriteRelease } from './releaseReply.js';

/**
 * KEYS: lock, channel, holds.
 * ARGV: write field, holdId ('' for an owner that never re-enters), publish command.
 *
 * Redisson's write unlock, owner-checked first and with a first write that needs no memory. The last write
 * hold deletes the lock, or, when the writer still holds read holds, switches it to read mode (the
 * downgrade). Either way `1` is published so that every waiting reader tries at once: Redisson publishes
 * only on delete, which leaves readers waiting behind a downgrade until the TTL runs out.
 */
export const writeReleaseScript = defineScript<ReadWriteRelease>({
  name: 'writeLock.release',
  lua: `
${LUA_CHECKED_CALL}
if redis.call('type', KEYS[1])['ok'] ~= 'hash' or redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return 0
end
if ARGV[2] ~= '' and checkedCall(KEYS[3], 'hdel', ARGV[2]) == 0 then
  return 0
end
local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if count > 1 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
  redis.call('hincrby', KEYS[1], ARGV[1], -1)
  return 1
end
redis.call('hdel', KEYS[1], ARGV[1])
if redis.call('hlen', KEYS[1]) == 1 then
  redis.call('del', KEYS[1], KEYS[3])
else
  redis.call('hset', KEYS[1], 'mode', 'read')
end
redis.call(ARGV[3], KEYS[2], '1')
return 2
`,
  memory: (db: MemoryDb, [lock = '', channel = '', holds = ''], [field = '', hold = '']) => {
    if (db.type(lock) !== 'hash' || db.hexists(lock, field) === 0) return 0;
    if (hold !== '' && checkedCall(db, holds, () => db.hdel(holds, hold)) === 0) return 0;
    const count = Number(db.hget(lock, field));
    if (count > 1) {
      db.hincrby(lock, field, -1);
      return 1;
    }
    db.hdel(lock, field);
    if (db.hlen(lock) === 1) db.del(lock, holds);
    else db.hset(lock, 'mode', 'read');
    db.publish(channel, '1');
    return 2;
  },
  parse: parseReadWriteRelease,
});
