import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';

/** Lua: fail with RXLOCK_WRONGTYPE unless KEYS[i] is missing or of type `expected[i]`. */
export const LUA_EXPECT_TYPES = `local function expectTypes(expected)
  for i, wanted in ipairs(expected) do
    local kind = redis.call('type', KEYS[i])['ok']
    if kind ~= 'none' and kind ~= wanted then return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[i] .. ' ' .. kind) end
  end
end`;

/** The memory twin of `expectTypes`. */
export function expectTypes(db: MemoryDb, keys: readonly string[], expected: readonly string[]): void {
  expected.forEach((wanted, i) => {
    const key = keys[i] ?? '';
    const kind = db.type(key);
    if (kind !== 'none' && kind !== wanted) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
  });
}
