import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';

/** Lua: refuses (changing nothing) when KEYS[1] is not a STRING count or KEYS[2] not the timeout ZSET. */
export const LUA_CHECK_TYPES = `for i, expected in ipairs({'string', 'zset'}) do
  local kind = redis.call('type', KEYS[i])['ok']
  if kind ~= 'none' and kind ~= expected then
    return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[i] .. ' ' .. kind)
  end
end`;

/** The memory twin of `LUA_CHECK_TYPES`. */
export function checkTypes(db: MemoryDb, count: string, timeouts: string): void {
  for (const [key, expected] of [
    [count, 'string'],
    [timeouts, 'zset'],
  ] as const) {
    const kind = db.type(key);
    if (kind !== 'none' && kind !== expected) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
  }
}
