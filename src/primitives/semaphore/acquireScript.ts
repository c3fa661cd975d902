import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, list, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { countValue, LUA_COUNT_VALUE, LUA_REFUSE_NON_INTEGER, refuseNonInteger } from './countValue.js';

/** Granted, or refused (the count is not enough; permits come back by a message, not by a TTL). */
export type SemaphoreAttempt = { readonly granted: true } | { readonly granted: false };

/**
 * KEYS: count, holds. ARGV: permits, holdId.
 *
 * Redisson's tryAcquire (take the permits if the count has them), plus our hold id: the permits this hold
 * took are recorded under it, so an attempt that runs twice takes them once. The record lives no longer than a
 * count that expires (`trySetPermits(permits, { ttlMs })`), as Redisson's expiring-permit semaphore keeps its
 * `{name}:timeout` no longer than its count.
 */
export const semaphoreAcquireScript = defineScript<SemaphoreAttempt>({
  name: 'semaphore.acquire',
  lua: `
${LUA_COUNT_VALUE}
for i = 1, 2 do
  local kind = redis.call('type', KEYS[i])['ok']
  local expected = i == 1 and 'string' or 'hash'
  if kind ~= 'none' and kind ~= expected then
    return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[i] .. ' ' .. kind)
  end
end
if redis.call('hexists', KEYS[2], ARGV[2]) == 1 then
  return {1}
end
local raw = redis.call('get', KEYS[1])
${LUA_REFUSE_NON_INTEGER}
local value = countValue(raw)
if value ~= nil and value >= tonumber(ARGV[1]) then
  redis.call('decrby', KEYS[1], ARGV[1])
  redis.call('hset', KEYS[2], ARGV[2], ARGV[1])
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[2], ttl) end
  return {1}
end
return {0}
`,
  memory: (db: MemoryDb, [count = '', holds = ''], [permits = '', hold = '']) => {
    for (const [key, expected] of [
      [count, 'string'],
      [holds, 'hash'],
    ] as const) {
      const kind = db.type(key);
      if (kind !== 'none' && kind !== expected) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
    }
    if (db.hexists(holds, hold) === 1) return [1];
    const raw = db.get(count);
    refuseNonInteger(count, raw);
    const value = countValue(raw);
    if (value !== undefined && value >= Number(permits)) {
      db.incrby(count, -Number(permits));
      db.hset(holds, hold, permits);
      const ttl = db.pttl(count);
      if (ttl > 0) db.pexpire(holds, ttl);
      return [1];
    }
    return [0];
  },
  parse: (reply) => (int(list(reply)[0] ?? 0) === 1 ? { granted: true } : { granted: false }),
});
