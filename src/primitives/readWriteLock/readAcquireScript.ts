import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript } from '../../store/Script.js';
import { parseReadWriteAttempt, type ReadWriteAttempt } from './acquireReply.js';
import { CHECK_KEY_AND_REPEAT_LUA, checkKeyAndRepeat, EXTEND_AND_RECORD_LUA, extendAndRecord, REPEATED } from './acquireSteps.js';

/**
 * KEYS: lock, holds, reader's timeout prefix (`{name}:<field>:rwlock_timeout`).
 * ARGV: leaseMs, read field, write field of the same owner, holdId ('' for an owner that never re-enters).
 *
 * Redisson's read acquire: granted when nobody holds the lock, when it is in read mode, or when this owner
 * holds the write lock (a downgrade). Each read hold `k` gets its own timeout key with the lease, and the
 * hash lives as long as the longest of them. A hold that is already granted answers granted again without
 * counting twice. A hash without `mode` is another primitive's and is left untouched.
 */
export const readAcquireScript = defineScript<ReadWriteAttempt>({
  name: 'readLock.acquire',
  lua: `${CHECK_KEY_AND_REPEAT_LUA}
if mode == false or mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
  if mode == false then redis.call('hset', KEYS[1], 'mode', 'read') end
  local index = redis.call('hincrby', KEYS[1], field, 1)
  redis.call('set', KEYS[3] .. ':' .. index, 1, 'px', lease)${EXTEND_AND_RECORD_LUA}
end
return {0, redis.call('pttl', KEYS[1])}
`,
  memory: (db: MemoryDb, [lock = '', holds = '', prefix = ''], [leaseArg = '', field = '', writeField = '', hold = '']) => {
    const mode = checkKeyAndRepeat(db, lock, holds, field, hold);
    if (mode === REPEATED) return [1, 0];
    const lease = Number(leaseArg);
    if (mode === null || mode === 'read' || (mode === 'write' && db.hexists(lock, writeField) === 1)) {
      if (mode === null) db.hset(lock, 'mode', 'read');
      const index = db.hincrby(lock, field, 1);
      db.set(`${prefix}:${index}`, '1', { px: lease });
      return extendAndRecord(db, lock, holds, hold, lease);
    }
    return [0, db.pttl(lock)];
  },
  parse: parseReadWriteAttempt,
});
