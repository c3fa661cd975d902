import type { MemoryDb } from '../../store/memory/MemoryDb.js';

/**
 * Lua, with KEYS[1] count, KEYS[2] timeouts, KEYS[3] channel and `now`, `publish` in scope: expired permits go
 * back to the count and the new count is published, as every Redisson script on this object starts.
 */
export const LUA_RECLAIM = `local expired = redis.call('zrangebyscore', KEYS[2], 0, now)
if #expired > 0 then
  for _, member in ipairs(expired) do redis.call('zrem', KEYS[2], member) end
  local value = redis.call('incrby', KEYS[1], #expired)
  if value > 0 then redis.call(publish, KEYS[3], value) end
end`;

/** The memory twin of `LUA_RECLAIM`. */
export function reclaim(db: MemoryDb, count: string, timeouts: string, channel: string): void {
  const expired = db.zrangebyscore(timeouts, 0, db.time());
  if (expired.length === 0) return;
  for (const member of expired) db.zrem(timeouts, member);
  const value = db.incrby(count, expired.length);
  if (value > 0) db.publish(channel, String(value));
}
