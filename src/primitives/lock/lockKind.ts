import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { FOREIGN_HASH } from '../../store/wrongType.js';

/** The locks sharing Redisson's lock hash: told apart by its `mode` field (read-write) or a line beside it (fair). */
export type LockKind = 'lock' | 'fairLock' | 'readWriteLock';

/** A hold count in a lock hash, as Redisson's HINCRBY writes it. Any other value means the hash is not a lock. */
const HOLD_COUNT = /^\d+$/;

/** Lua: ends the script naming `key` (a Lua expression) as a hash that is not a lock. */
export function luaNotALock(key: string): string {
  return `error({err = '${WRONGTYPE_REPLY} ' .. ${key} .. ' ${FOREIGN_HASH}'})`;
}

/** Lua: whether `value` can be a hold count. */
export const LUA_IS_HOLD_COUNT = `local function isHoldCount(value)
  return string.match(value, '^%d+$') ~= nil
end`;

/**
 * Lua: `lockKind(lock, queue, timeouts)` is the kind of lock at `lock` with Redisson's fair line in `queue` and
 * `timeouts`: a hash whose `mode` is `read`/`write` is a read-write lock; else a line makes it a fair lock (one
 * not held too, while waiters queue); else a hash is a lock; false when there is nothing. A key of another type,
 * or a hash with a value that is no hold count, ends the script naming it. Reads only.
 */
export const LUA_LOCK_KIND = `${LUA_IS_HOLD_COUNT}
local function lockKind(lock, queue, timeouts)
  local kind = redis.call('type', lock)['ok']
  if kind ~= 'none' and kind ~= 'hash' then error({err = '${WRONGTYPE_REPLY} ' .. lock .. ' ' .. kind}) end
  local readWrite = false
  if kind == 'hash' then
    local fields = redis.call('hgetall', lock)
    for i = 1, #fields, 2 do
      local value = fields[i + 1]
      if fields[i] == 'mode' and (value == 'read' or value == 'write') then
        readWrite = true
      elseif not isHoldCount(value) then
        ${luaNotALock('lock')}
      end
    end
  end
  if readWrite then return 'readWriteLock' end
  if redis.call('exists', queue, timeouts) > 0 then return 'fairLock' end
  return kind == 'hash' and 'lock'
end`;

/** The error the memory twins raise for a hash that is not a lock. */
export function notALock(key: string): ScriptError {
  return new ScriptError(`${WRONGTYPE_REPLY} ${key} ${FOREIGN_HASH}`);
}

/** Whether `value` can be a hold count (the twin of `isHoldCount`). */
export function isHoldCount(value: string | null): boolean {
  return value !== null && HOLD_COUNT.test(value);
}

/** The memory twin of `lockKind`: undefined when there is nothing. */
export function lockKind(db: MemoryDb, lock: string, queue: string, timeouts: string): LockKind | undefined {
  const kind = db.type(lock);
  if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
  let readWrite = false;
  for (const field of kind === 'hash' ? db.hkeys(lock) : []) {
    const value = db.hget(lock, field);
    if (field === 'mode' && (value === 'read' || value === 'write')) readWrite = true;
    else if (!isHoldCount(value)) throw notALock(lock);
  }
  if (readWrite) return 'readWriteLock';
  if (db.exists(queue) + db.exists(timeouts) > 0) return 'fairLock';
  return kind === 'hash' ? 'lock' : undefined;
}

/**
 * A force-unlock script's reply: whether there was a lock of its kind (true: unlocked), or the kind the lock
 * turned out to be, which another script unlocks (nothing was changed).
 */
export type ForceUnlockReply = boolean | LockKind;

/** Parses a force-unlock script's reply: an integer 0/1, or the name of another kind. */
export function parseForceUnlock(reply: unknown): ForceUnlockReply {
  if (reply === 'lock' || reply === 'fairLock' || reply === 'readWriteLock') return reply;
  if (reply === 0 || reply === 1) return reply === 1;
  throw new TypeError(`rxlock: expected a force-unlock reply, got ${JSON.stringify(reply)}`);
}
