import { defineScript, int, list } from '../../store/Script.js';
import { countValue } from '../semaphore/countValue.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW } from './permitIds.js';
import { LUA_RECLAIM, reclaim } from './reclaim.js';

/** The permits of a semaphore with expiring permits, as Redisson's `getPermits` and `acquiredPermits` read them. */
export interface PermitCounts {
  /** Whether the semaphore has a count at all. */
  readonly exists: boolean;
  readonly available: number;
  /** Permits held (with or without a lease): the members of `{name}:timeout`. */
  readonly acquired: number;
}

/**
 * KEYS: count, timeouts, channel. ARGV: publish command.
 * Reclaims expired permits (publishing the new count) as Redisson's `getPermits` and `acquiredPermits` do, then
 * answers {exists, available, acquired}.
 */
export const permitCountsScript = defineScript<PermitCounts>({
  name: 'leasedSemaphore.permitCounts',
  lua: `
${LUA_CHECK_TYPES}
${LUA_NOW}
local publish = ARGV[1]
${LUA_RECLAIM}
local raw = redis.call('get', KEYS[1])
return {raw and 1 or 0, countValue(raw) or 0, redis.call('zcard', KEYS[2])}
`,
  memory: (db, [count = '', timeouts = '', channel = '']) => {
    checkTypes(db, count, timeouts);
    reclaim(db, count, timeouts, channel);
    const raw = db.get(count);
    return [raw === null ? 0 : 1, countValue(raw) ?? 0, db.zcard(timeouts)];
  },
  parse: (reply) => {
    const [exists = 0, available = 0, acquired = 0] = list(reply).map(int);
    return { exists: exists === 1, available, acquired };
  },
});

/**
 * KEYS: count, timeouts, channel. ARGV: permits, publish command.
 * Redisson's `setPermits` of the semaphore with expiring permits: makes the total (available plus held) `permits`
 * by moving the available count, held permits untouched; sets the count when there is none. Running it twice
 * changes nothing more. Redisson publishes the total; this publishes the new available count, and only when it
 * is above 0 (when permits may be taken), which wakes as many waiters as may go.
 */
export const setPermitsScript = defineScript<number>({
  name: 'leasedSemaphore.setPermits',
  lua: `
${LUA_CHECK_TYPES}
local target = tonumber(ARGV[1])
local value = target
if kind == 'none' then
  redis.call('set', KEYS[1], target)
else
  local total = countValue(redis.call('get', KEYS[1])) + redis.call('zcard', KEYS[2])
  if total == target then
    return countValue(redis.call('get', KEYS[1]))
  end
  value = redis.call('incrby', KEYS[1], target - total)
end
if value > 0 then redis.call(ARGV[2], KEYS[3], value) end
return value
`,
  memory: (db, [count = '', timeouts = '', channel = ''], [permits = '']) => {
    checkTypes(db, count, timeouts);
    const target = Number(permits);
    let value = target;
    const raw = db.get(count);
    if (raw === null) {
      db.set(count, String(target));
    } else {
      const total = (countValue(raw) ?? 0) + db.zcard(timeouts);
      if (total === target) return countValue(raw) ?? 0;
      value = db.incrby(count, target - total);
    }
    if (value > 0) db.publish(channel, String(value));
    return value;
  },
  parse: int,
});
