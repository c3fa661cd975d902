import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int } from '../../store/Script.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW, LUA_UNHEX, unhex } from './permitIds.js';

/**
 * KEYS: count, timeouts, channel. ARGV: publish command, permit id (hex) for each permit of the hold.
 *
 * Redisson's tryRelease for a hold's permits: the ids still there go back to the count and the new count
 * is published. 1 when every id was there with its lease running; 0 when some had gone (expired and
 * reclaimed, or deleted), and nothing changes for those, so a repeated release changes nothing, or had
 * expired with nobody reclaiming them yet: those go back to the count as a reclaim would return them, but
 * the hold had outlived its lease, so the release is not a clean one. The first write (ZREM) needs no memory.
 */
export const leasedReleaseScript = defineScript<0 | 1>({
  name: 'leasedSemaphore.release',
  lua: `
${LUA_CHECK_TYPES}
${LUA_UNHEX}
${LUA_NOW}
local removed, live = 0, 0
for i = 2, #ARGV do
  local member = unhex(ARGV[i])
  local score = redis.call('zscore', KEYS[2], member)
  if score then
    if tonumber(score) > now then live = live + 1 end
    removed = removed + redis.call('zrem', KEYS[2], member)
  end
end
if removed == 0 then
  return 0
end
local value = redis.call('incrby', KEYS[1], removed)
redis.call(ARGV[1], KEYS[3], value)
if live == #ARGV - 1 then
  return 1
end
return 0
`,
  memory: (db: MemoryDb, [count = '', timeouts = '', channel = ''], [, ...ids]) => {
    checkTypes(db, count, timeouts);
    const now = db.time();
    let removed = 0;
    let live = 0;
    for (const id of ids) {
      const member = unhex(id);
      const score = db.zscore(timeouts, member);
      if (score === null) continue;
      if (score > now) live++;
      removed += db.zrem(timeouts, member);
    }
    if (removed === 0) return 0;
    const value = db.incrby(count, removed);
    db.publish(channel, String(value));
    return live === ids.length ? 1 : 0;
  },
  parse: (reply) => (int(reply) === 1 ? 1 : 0),
});
