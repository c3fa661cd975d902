import { int64Of, type MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { FOREIGN_STRING } from '../../store/wrongType.js';

// The count key of both semaphores and the latch: Redisson's STRING, KEYS[1] of every script that reads it.

/**
 * Lua: `countValue(raw)` is a count key's value as the semaphores and the latch read it: an integer as Redis's
 * INCRBY takes it (digits without leading zeros, an optional minus first, within 64 bits), or nil for anything
 * else, in Lua and in the memory store alike (Lua's `tonumber` would also take `2.5`, `1e3` or ` 7`, which
 * DECRBY then refuses).
 */
export const LUA_COUNT_VALUE = `local function countValue(raw)
  if raw == '0' then return 0 end
  local digits = raw and string.match(raw, '^%-?([1-9]%d*)$')
  if not digits or #digits > 19 then return nil end
  if #digits == 19 and digits > (string.sub(raw, 1, 1) == '-' and '9223372036854775808' or '9223372036854775807') then return nil end
  return tonumber(raw)
end`;

/**
 * Lua: refuses a count key (KEYS[1]) of another type, or a STRING that is not an integer (`countValue`); leaves
 * its type in `kind` ('none' when there is no count). Defines `countValue`.
 */
export const LUA_CHECK_COUNT = `${LUA_COUNT_VALUE}
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
if kind == 'string' and countValue(redis.call('get', KEYS[1])) == nil then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ${FOREIGN_STRING}')
end`;

/** Lua: refuses `raw`, the value of a count key read already, when it is not an integer (`countValue`). */
export const LUA_REFUSE_NON_INTEGER = `if raw and countValue(raw) == nil then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ${FOREIGN_STRING}')
end`;

/** The memory twin of `LUA_CHECK_COUNT`. */
export function checkCount(db: MemoryDb, key: string): void {
  const kind = db.type(key);
  if (kind !== 'none' && kind !== 'string') throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
  refuseNonInteger(key, db.get(key));
}

/** The memory twin of `LUA_REFUSE_NON_INTEGER`. */
export function refuseNonInteger(key: string, raw: string | null): void {
  if (raw !== null && countValue(raw) === undefined) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${FOREIGN_STRING}`);
}

/** The memory twin of `countValue`. */
export function countValue(raw: string | null): number | undefined {
  return raw === null || int64Of(raw) === undefined ? undefined : Number(raw);
}
