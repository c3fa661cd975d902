import { ScriptError, WRONGTYPE_REPLY } from './Script.js';
import type { MemoryDb } from './memory/MemoryDb.js';

/**
 * Lua: `checkedCall(key, command, ...)` is `redis.call(command, key, ...)`, except that a key of another type
 * ends the script with `RXLOCK_WRONGTYPE <key> <type>` (an error raised from any depth; Redis appends where
 * in the script it was raised) instead of Redis's WRONGTYPE, which does not say which key. Other errors (a
 * counter that is not a number) end it as they are.
 */
export const LUA_CHECKED_CALL = `
local function checkedCall(key, command, ...)
  local reply = redis.pcall(command, key, ...)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) == 'WRONGTYPE' then
      reply = {err = '${WRONGTYPE_REPLY} ' .. key .. ' ' .. redis.call('type', key)['ok']}
    end
    error(reply)
  end
  return reply
end`;

/** The memory twin of `checkedCall`: runs `command` on `key` of `db`, naming the key if it holds another type. */
export function checkedCall<T>(db: MemoryDb, key: string, command: () => T): T {
  try {
    return command();
  } catch (error) {
    if (error instanceof ScriptError && error.message.startsWith('WRONGTYPE')) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${db.type(key)}`);
    throw error;
  }
}

/**
 * Type words a script names (`RXLOCK_WRONGTYPE <key> <word>`) for a key of the Redis type it expects whose value is
 * not what rxlock keeps there, and how errors say them. Longer than any Redis type name (a module's has 9
 * characters), so they never stand for a real type.
 */
export const FOREIGN_HASH = 'hash-not-a-lock';
export const FOREIGN_STRING = 'string-not-an-integer';
const DESCRIBED: ReadonlyMap<string, string> = new Map([
  [FOREIGN_HASH, 'hash that is not a lock'],
  [FOREIGN_STRING, 'string that is not an integer'],
]);

/** What Redis appends to an error a script raised with `error()`. */
const SCRIPT_SUFFIX = / script: [0-9a-f]{40}, on @user_script:\d+\.$/;

/** The detail of an `RXLOCK_WRONGTYPE <key> <type>` reply (`<key> <type>`), without what Redis appended. */
export function wrongTypeDetail(reply: string): string {
  return reply.slice(WRONGTYPE_REPLY.length + 1).replace(SCRIPT_SUFFIX, '');
}

/**
 * The key and its type in a `wrongtype` store error's detail (the key may contain spaces, a type never does);
 * when the detail is empty (Redis did not say which key), the lock's own name.
 */
export function wrongTypeOf(detail: string, lockName: string): { key: string; type: string } {
  const at = detail.lastIndexOf(' ');
  if (at <= 0) return { key: lockName, type: 'value of another type' };
  const type = detail.slice(at + 1);
  return { key: detail.slice(0, at), type: DESCRIBED.get(type) ?? type };
}
