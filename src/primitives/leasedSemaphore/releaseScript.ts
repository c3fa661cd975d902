import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int } from '../../store/Script.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_UNHEX, unhex } from './permitIds.js';

/**
 * KEYS: count, timeouts, channel. ARGV: publish command, permit id (hex) for each permit of the hold.
 *
 * Redisson's tryRelease for a hold's permits: the ids still there go back to the count and the new count
 * is published. 1 when every id was there; 0 when some had gone (expired and reclaimed, or deleted), and
 * nothing changes for those, so a repeated release changes nothing. The first write (ZREM) needs no memory.
 */
export const leasedReleaseScript = defineScript<0 | 1>({
  name: 'leasedSemaphore.release',
  lua: `
${LUA_CHECK_TYPES}
${LUA_UNHEX}
local removed = 0
for i = 2, #ARGV do removed = removed + redis.call('zrem', KEYS[2], unhex(ARGV[i])) end
if removed == 0 then
  return 0
end
local value = redis.call('incrby', KEYS[1], removed)
redis.call(ARGV[1], KEYS[3], value)
if removed == #ARGV - 1 then
  return 1
end
return 0
`,
  memory: (db: MemoryDb, [count = '', timeouts = '', channel = ''], [, ...ids]) => {
    checkTypes(db, count, timeouts);
    let removed = 0;
    for (const id of ids) removed += db.zrem(timeouts, unhex(id));
    if (removed === 0) return 0;
    const value = db.incrby(count, removed);
    db.publish(channel, String(value));
    return removed === ids.length ? 1 : 0;
  },
  parse: (reply) => (int(reply) === 1 ? 1 : 0),
});
