import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';

// The count key of both semaphores and the latch: Redisson's STRING, KEYS[1] of every script that reads it.

/** Lua: refuses a count key (KEYS[1]) of another type; leaves its type in `kind` ('none' when there is no count). */
export const LUA_CHECK_COUNT = `local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end`;

/** The memory twin of `LUA_CHECK_COUNT`. */
export function checkCount(db: MemoryDb, key: string): void {
  const kind = db.type(key);
  if (kind !== 'none' && kind !== 'string') throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
}

/**
 * A count key's value as the semaphores and the latch read it: an integer written in digits (an optional
 * minus first), or no count at all for anything else, in Lua and in the memory store alike (Lua's
 * `tonumber` would also take `2.5`, `1e3` or ` 7`, which DECRBY then refuses).
 */
export const LUA_COUNT_VALUE = `local function countValue(raw)
  if raw and string.match(raw, '^%-?%d+$') then return tonumber(raw) end
  return nil
end`;

/** The memory twin of `countValue`. */
export function countValue(raw: string | null): number | undefined {
  return raw !== null && /^-?\d+$/.test(raw) ? Number(raw) : undefined;
}
