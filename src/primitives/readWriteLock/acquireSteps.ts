import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';

/*
 * The steps the read and the write acquire share, in Lua and in their memory twins. KEYS[1] is the lock
 * hash and KEYS[2] the hold ids; ARGV[1] is the lease, ARGV[2] the field and ARGV[4] the hold id.
 */

/**
 * Refuses a key of another type, or a hash without `mode` (another primitive's), before anything is written;
 * then answers granted again, without counting twice, for a hold that is already granted (a re-sent acquire).
 * Leaves `kind`, `mode`, `lease`, `field`, `hold` and `mine` for the script's own part.
 */
export const CHECK_KEY_AND_REPEAT_LUA = `
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'hash' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if kind == 'hash' and mode == false then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' hash')
end
local lease = tonumber(ARGV[1])
local field, hold = ARGV[2], ARGV[4]
local mine = redis.call('hexists', KEYS[1], field) == 1
if mine and (hold == '' or redis.call('hexists', KEYS[2], hold) == 1) then
  return {1, 0}
end`;

/** After a grant: the hash lives at least `lease`, and the hold id (if any) as long as the hash. Answers granted. */
export const EXTEND_AND_RECORD_LUA = `
  local ttl = redis.call('pttl', KEYS[1])
  if ttl < lease then
    redis.call('pexpire', KEYS[1], lease)
    ttl = lease
  end
  if hold ~= '' then
    redis.call('hset', KEYS[2], hold, 1)
    redis.call('pexpire', KEYS[2], ttl)
  end
  return {1, 0}`;

/** What `checkKeyAndRepeat` answers for a hold that is already granted. */
export const REPEATED = Symbol('repeated');

/** `CHECK_KEY_AND_REPEAT_LUA` on the memory store: the lock's mode (`null`: free), or `REPEATED`. */
export function checkKeyAndRepeat(db: MemoryDb, lock: string, holds: string, field: string, hold: string): string | null | typeof REPEATED {
  const kind = db.type(lock);
  if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
  const mode = db.hget(lock, 'mode');
  if (kind === 'hash' && mode === null) throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} hash`);
  if (db.hexists(lock, field) === 1 && (hold === '' || db.hexists(holds, hold) === 1)) return REPEATED;
  return mode;
}

/** `EXTEND_AND_RECORD_LUA` on the memory store. */
export function extendAndRecord(db: MemoryDb, lock: string, holds: string, hold: string, lease: number): [1, 0] {
  let ttl = db.pttl(lock);
  if (ttl < lease) {
    db.pexpire(lock, lease);
    ttl = lease;
  }
  if (hold !== '') {
    db.hset(holds, hold, '1');
    db.pexpire(holds, ttl);
  }
  return [1, 0];
}
