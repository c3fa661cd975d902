import { defineScript, int } from '../../store/Script.js';
import { checkTypes, LUA_CHECK_TYPES } from './checkTypes.js';
import { LUA_NOW } from './permitIds.js';
import { LUA_RECLAIM, reclaim } from './reclaim.js';
import { countValue } from '../semaphore/countValue.js';

/** KEYS: count, timeouts, channel. ARGV: publish command. Reclaims expired permits (publishing the new count), then answers the count, as Redisson's. */
export const leasedAvailablePermitsScript = defineScript<number>({
  name: 'leasedSemaphore.availablePermits',
  lua: `
${LUA_CHECK_TYPES}
${LUA_NOW}
local publish = ARGV[1]
${LUA_RECLAIM}
return countValue(redis.call('get', KEYS[1])) or 0
`,
  memory: (db, [count = '', timeouts = '', channel = '']) => {
    checkTypes(db, count, timeouts);
    reclaim(db, count, timeouts, channel);
    return countValue(db.get(count)) ?? 0;
  },
  parse: int,
});
