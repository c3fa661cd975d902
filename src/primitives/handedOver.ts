import type { MemoryDb } from '../store/memory/MemoryDb.js';
import { ScriptError, type Reply } from '../store/Script.js';

/**
 * What a lock's release (or a waiter's leave) answers when its final unlock gave the lock straight to a
 * waiter whose client listens: the grant travels in the hand-off message.
 */
export const HANDED_OVER = 3;

/** `Script.handsOver` of the scripts that may answer `HANDED_OVER`. */
export function handedOver(reply: Reply): boolean {
  return reply === HANDED_OVER;
}

/**
 * Lua: a direct hand-off's first writes, before anything of the grant: the fencing token drawn (-1 without
 * fencing) and the hold id written (none: nil), each with `pcall`. Nil if Redis refused either (a key of
 * another type, a counter that is not a number): the waiter is then woken to try itself, and its own attempt
 * reports what is wrong, while the release that hands on still succeeds.
 */
export const LUA_DRAW_HAND_OFF_FIRST = `
local function drawHandOffFirst(tokenKey, holdsKey, fencing, holdId)
  local token = -1
  if fencing then
    token = redis.pcall('incr', tokenKey)
    if type(token) ~= 'number' then return nil end
  end
  if holdId and type(redis.pcall('hset', holdsKey, holdId, '1')) ~= 'number' then return nil end
  return token
end`;

/** The memory twin of `LUA_DRAW_HAND_OFF_FIRST` (undefined where the Lua answers nil). */
export function drawHandOffFirst(
  db: MemoryDb,
  keys: { readonly token: string; readonly holds: string },
  fencing: boolean,
  holdId: string | undefined,
): number | undefined {
  try {
    const token = fencing ? db.incrby(keys.token, 1) : -1;
    if (holdId !== undefined) db.hset(keys.holds, holdId, '1');
    return token;
  } catch (error) {
    if (error instanceof ScriptError) return undefined;
    throw error;
  }
}
