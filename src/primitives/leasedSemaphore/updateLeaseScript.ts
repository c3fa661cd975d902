import { defineScript, int } from '../../store/Script.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW, LUA_UNHEX, NON_EXPIRABLE, unhex } from './permitIds.js';
import { LUA_RECLAIM, reclaim } from './reclaim.js';

/**
 * KEYS: count, timeouts, channel. ARGV: permit id (hex), leaseMs ('' for no lease), publish command.
 *
 * Redisson's updateLeaseTime (3.41.0) on the server's clock: expired permits go back to the count first; then a
 * permit still held gets its new expiry, `leaseMs` from now, or Redisson's score for a permit without a lease.
 * 1 if the permit was held, 0 if not (released, expired, never there): nothing is added.
 */
export const updateLeaseScript = defineScript<boolean>({
  name: 'leasedSemaphore.updateLeaseTime',
  lua: `
${LUA_CHECK_TYPES}
${LUA_NOW}
${LUA_UNHEX}
local publish = ARGV[3]
${LUA_RECLAIM}
local member = unhex(ARGV[1])
if not redis.call('zscore', KEYS[2], member) then
  return 0
end
local expiry = ${NON_EXPIRABLE}
if ARGV[2] ~= '' then expiry = now + tonumber(ARGV[2]) end
redis.call('zadd', KEYS[2], expiry, member)
return 1
`,
  memory: (db, [count = '', timeouts = '', channel = ''], [id = '', leaseMs = '']) => {
    checkTypes(db, count, timeouts);
    reclaim(db, count, timeouts, channel);
    const member = unhex(id);
    if (db.zscore(timeouts, member) === null) return 0;
    db.zadd(timeouts, leaseMs === '' ? NON_EXPIRABLE : db.time() + Number(leaseMs), member);
    return 1;
  },
  parse: (reply) => int(reply) === 1,
});

/**
 * KEYS: count, timeouts, channel. ARGV: permit id (hex), publish command.
 *
 * Redisson's getLeaseTime (3.41.0), reclaiming expired permits first as Redisson's does: the ms left on a held
 * permit's lease, -1 for a permit without a lease, or 0 when the permit is not held.
 */
export const leaseTimeScript = defineScript<number>({
  name: 'leasedSemaphore.getLeaseTime',
  lua: `
${LUA_CHECK_TYPES}
${LUA_NOW}
${LUA_UNHEX}
local publish = ARGV[2]
${LUA_RECLAIM}
local score = redis.call('zscore', KEYS[2], unhex(ARGV[1]))
if not score then
  return 0
end
if tonumber(score) >= ${NON_EXPIRABLE} then
  return -1
end
return tonumber(score) - now
`,
  memory: (db, [count = '', timeouts = '', channel = ''], [id = '']) => {
    checkTypes(db, count, timeouts);
    reclaim(db, count, timeouts, channel);
    const score = db.zscore(timeouts, unhex(id));
    if (score === null) return 0;
    return score >= NON_EXPIRABLE ? -1 : score - db.time();
  },
  parse: int,
});
