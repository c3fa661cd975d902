import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, ScriptError, UPGRADE_REPLY } from '../../store/Script.js';
import { parseReadWriteAttempt, type ReadWriteAttempt } from './acquireReply.js';
import { CHECK_KEY_AND_REPEAT_LUA, checkKeyAndRepeat, EXTEND_AND_RECORD_LUA, extendAndRecord, REPEATED } from './acquireSteps.js';

/**
 * KEYS: lock, holds.
 * ARGV: leaseMs, write field, read field of the same owner, holdId ('' for an owner that never re-enters).
 *
 * Redisson's write acquire: granted when nobody holds the lock, or again (reentrant) to its writer. An owner
 * that holds the read lock and asks for the write lock would wait for itself forever, so the script refuses
 * with `RXLOCK_UPGRADE` and changes nothing. A hold that is already granted answers granted again without
 * counting twice. A hash without `mode` is another primitive's and is left untouched.
 */
export const writeAcquireScript = defineScript<ReadWriteAttempt>({
  name: 'writeLock.acquire',
  lua: `${CHECK_KEY_AND_REPEAT_LUA}
if mode == false or mine then
  if mode == false then redis.call('hset', KEYS[1], 'mode', 'write') end
  redis.call('hincrby', KEYS[1], field, 1)${EXTEND_AND_RECORD_LUA}
end
if mode == 'read' and redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
  return redis.error_reply('${UPGRADE_REPLY} ' .. KEYS[1] .. ' ' .. ARGV[3])
end
return {0, redis.call('pttl', KEYS[1])}
`,
  memory: (db: MemoryDb, [lock = '', holds = ''], [leaseArg = '', field = '', readField = '', hold = '']) => {
    const mode = checkKeyAndRepeat(db, lock, holds, field, hold);
    if (mode === REPEATED) return [1, 0];
    const lease = Number(leaseArg);
    if (mode === null || db.hexists(lock, field) === 1) {
      if (mode === null) db.hset(lock, 'mode', 'write');
      db.hincrby(lock, field, 1);
      return extendAndRecord(db, lock, holds, hold, lease);
    }
    if (mode === 'read' && db.hexists(lock, readField) === 1) throw new ScriptError(`${UPGRADE_REPLY} ${lock} ${readField}`);
    return [0, db.pttl(lock)];
  },
  parse: parseReadWriteAttempt,
});
