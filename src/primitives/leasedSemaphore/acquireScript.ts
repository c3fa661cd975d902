import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, list } from '../../store/Script.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW, LUA_UNHEX, NON_EXPIRABLE, unhex } from './permitIds.js';
import { LUA_RECLAIM, reclaim } from './reclaim.js';
import { countValue } from '../semaphore/countValue.js';

/** Granted, or refused with the time until the earliest held permit expires (-1: none will). */
export type LeasedAttempt = { readonly granted: true } | { readonly granted: false; readonly retryInMs: number };

/**
 * KEYS: count, timeouts, channel. ARGV: permits, leaseMs, publish command, permit id (hex) for each permit.
 *
 * Redisson's RPermitExpirableSemaphore acquire on the server's clock: expired permits go back to the count
 * first; then the permits are taken and each id is stored with its expiry. When the count is short the
 * reply says when the earliest held permit expires, which is when trying again can succeed. Permit ids are
 * new for each acquisition, so an attempt that runs twice finds its ids already there and counts once.
 */
export const leasedAcquireScript = defineScript<LeasedAttempt>({
  name: 'leasedSemaphore.acquire',
  lua: `
${LUA_CHECK_TYPES}
${LUA_NOW}
${LUA_UNHEX}
local publish = ARGV[3]
local mine = redis.call('zscore', KEYS[2], unhex(ARGV[4]))
if mine and tonumber(mine) > now then
  return {1}
end
${LUA_RECLAIM}
local value = countValue(redis.call('get', KEYS[1]))
local permits = tonumber(ARGV[1])
if value ~= nil and value >= permits then
  redis.call('decrby', KEYS[1], permits)
  local expiry = now + tonumber(ARGV[2])
  for i = 4, #ARGV do redis.call('zadd', KEYS[2], expiry, unhex(ARGV[i])) end
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[2], ttl) end
  return {1}
end
local earliest = redis.call('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if earliest[2] ~= nil and tonumber(earliest[2]) < ${NON_EXPIRABLE} then
  return {0, math.max(1, tonumber(earliest[2]) - now)}
end
return {0, -1}
`,
  memory: (db: MemoryDb, [count = '', timeouts = '', channel = ''], [permitsArg = '', leaseMs = '', , ...ids]) => {
    checkTypes(db, count, timeouts);
    const now = db.time();
    const mine = db.zscore(timeouts, unhex(ids[0] ?? ''));
    if (mine !== null && mine > now) return [1];
    reclaim(db, count, timeouts, channel);
    const value = countValue(db.get(count));
    const permits = Number(permitsArg);
    if (value !== undefined && value >= permits) {
      db.incrby(count, -permits);
      for (const id of ids) db.zadd(timeouts, now + Number(leaseMs), unhex(id));
      const ttl = db.pttl(count);
      if (ttl > 0) db.pexpire(timeouts, ttl);
      return [1];
    }
    const [earliest] = db.zrangeWithScores(timeouts);
    if (earliest !== undefined && earliest[1] < NON_EXPIRABLE) return [0, Math.max(1, earliest[1] - now)];
    return [0, -1];
  },
  parse: (reply) => {
    const [status, retryInMs] = list(reply);
    return int(status ?? 0) === 1 ? { granted: true } : { granted: false, retryInMs: int(retryInMs ?? -1) };
  },
});
