import { defineScript, int } from '../../store/Script.js';
import { checkCount, countValue, LUA_CHECK_COUNT } from './countValue.js';
import { luaRecallOp, recallOp } from './recallOp.js';

// Shared by the semaphore and the semaphore with expiring permits: both keep Redisson's STRING count and channel.

/**
 * KEYS: count, channel, ops. ARGV: permits, op id, publish command, TTL in ms (optional: none when absent or '').
 * Redisson's trySetPermits (and its `trySetPermits(permits, Duration)` of 3.29.0, which SETs with PX): sets the
 * count only if there is none; 1 if it did. The op id makes a re-sent copy answer the same (it would otherwise
 * find the count it set, and answer 0).
 */
export const trySetPermitsScript = defineScript<boolean>({
  name: 'semaphore.trySetPermits',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[3]', 'ARGV[2]')}
if kind ~= 'none' then
  return remember(0)
end
if ARGV[4] ~= nil and ARGV[4] ~= '' then
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[4])
else
  redis.call('set', KEYS[1], ARGV[1])
end
redis.call(ARGV[3], KEYS[2], ARGV[1])
return remember(1)
`,
  memory: (db, [count = '', channel = '', ops = ''], [permits = '', opId = '', , ttlMs = '']) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    if (db.exists(count) === 1) return op.remember(0);
    db.set(count, permits, ttlMs === '' ? {} : { px: Number(ttlMs) });
    db.publish(channel, permits);
    return op.remember(1);
  },
  parse: (reply) => int(reply) === 1,
});

/**
 * KEYS: count, channel, ops. ARGV: permits (may be negative), op id, publish command.
 * Redisson's addPermits: adds to the count (creating it) and publishes the new count, which it returns.
 * The op id makes a re-sent copy answer the same count without adding again.
 */
export const addPermitsScript = defineScript<number>({
  name: 'semaphore.addPermits',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[3]', 'ARGV[2]')}
local value = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[3], KEYS[2], value)
return remember(value)
`,
  memory: (db, [count = '', channel = '', ops = ''], [permits = '', opId = '']) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    const value = db.incrby(count, Number(permits));
    db.publish(channel, String(value));
    return op.remember(value);
  },
  parse: int,
});

/** KEYS: count. The available permits (0 when there is no count). Read-only. */
export const availablePermitsScript = defineScript<number>({
  name: 'semaphore.availablePermits',
  lua: `
${LUA_CHECK_COUNT}
return countValue(redis.call('get', KEYS[1])) or 0
`,
  memory: (db, [count = '']) => {
    checkCount(db, count);
    return countValue(db.get(count)) ?? 0;
  },
  parse: int,
});

/**
 * KEYS: count, then the object's other keys but its op memory, which expires by itself (so that a copy of an op
 * re-sent after the delete still finds its reply, and re-creates nothing). Deletes them all; 1 if there was a
 * count. A count of another type is left untouched.
 */
export const deleteSemaphoreScript = defineScript<boolean>({
  name: 'semaphore.delete',
  lua: `
${LUA_CHECK_COUNT}
return redis.call('del', unpack(KEYS)) > 0 and kind ~= 'none' and 1 or 0
`,
  memory: (db, keys) => {
    const [count = ''] = keys;
    checkCount(db, count);
    const existed = db.exists(count);
    db.del(...keys);
    return existed;
  },
  parse: (reply) => int(reply) === 1,
});
