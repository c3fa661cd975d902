import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { checkCount, LUA_CHECK_COUNT } from '../semaphore/countValue.js';

/**
 * Lua: refuses (changing nothing) when KEYS[1] is not a STRING count that is an integer (`LUA_CHECK_COUNT`, which
 * defines `countValue`) or KEYS[2] not the timeout ZSET.
 */
export const LUA_CHECK_TYPES = `${LUA_CHECK_COUNT}
local timeoutsKind = redis.call('type', KEYS[2])['ok']
if timeoutsKind ~= 'none' and timeoutsKind ~= 'zset' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[2] .. ' ' .. timeoutsKind)
end`;

/** The memory twin of `LUA_CHECK_TYPES`. */
export function checkTypes(db: MemoryDb, count: string, timeouts: string): void {
  checkCount(db, count);
  const kind = db.type(timeouts);
  if (kind !== 'none' && kind !== 'zset') throw new ScriptError(`${WRONGTYPE_REPLY} ${timeouts} ${kind}`);
}
