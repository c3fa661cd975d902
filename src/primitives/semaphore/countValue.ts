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
