import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int } from '../../store/Script.js';
import { checkCount, LUA_CHECK_COUNT } from './countValue.js';

/**
 * KEYS: count, holds, channel. ARGV: holdId, publish command.
 *
 * Gives back the permits recorded under the hold id and publishes the new count, as Redisson's release.
 * A hold id that is not there (released already, or the semaphore was deleted) answers 0 and changes
 * nothing. A count that is not an integer is refused before anything is written. The first write (HDEL) needs
 * no memory.
 */
export const semaphoreReleaseScript = defineScript<0 | 1>({
  name: 'semaphore.release',
  lua: `
if redis.call('type', KEYS[2])['ok'] ~= 'hash' then
  return 0
end
local permits = redis.call('hget', KEYS[2], ARGV[1])
if permits == false then
  return 0
end
${LUA_CHECK_COUNT}
redis.call('hdel', KEYS[2], ARGV[1])
local value = redis.call('incrby', KEYS[1], permits)
redis.call(ARGV[2], KEYS[3], value)
return 1
`,
  memory: (db: MemoryDb, [count = '', holds = '', channel = ''], [hold = '']) => {
    if (db.type(holds) !== 'hash') return 0;
    const permits = db.hget(holds, hold);
    if (permits === null) return 0;
    checkCount(db, count);
    db.hdel(holds, hold);
    const value = db.incrby(count, Number(permits));
    db.publish(channel, String(value));
    return 1;
  },
  parse: (reply) => (int(reply) === 1 ? 1 : 0),
});
