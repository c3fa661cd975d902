import { defineScript, int } from '../../store/Script.js';
import { expectTypes, LUA_EXPECT_TYPES } from './expectTypes.js';

/**
 * KEYS: count, leases, channel. ARGV: publish command.
 *
 * Takes every permit back from its holder at once, as if all leases had run out: the leases are deleted,
 * the count grows by their number and the new count is published, which wakes waiters the way an expired
 * lease does. Answers how many permits came back.
 */
export const leasedSemaphoreRevokeScript = defineScript<number>({
  name: 'cli.leasedSemaphore.revoke',
  lua: `
${LUA_EXPECT_TYPES}
local wrong = expectTypes({'string', 'zset'})
if wrong then return wrong end
local leased = redis.call('zcard', KEYS[2])
if leased == 0 then return 0 end
redis.call('del', KEYS[2])
local value = redis.call('incrby', KEYS[1], leased)
redis.call(ARGV[1], KEYS[3], value)
return leased
`,
  memory: (db, keys) => {
    const [count = '', leases = '', channel = ''] = keys;
    expectTypes(db, keys, ['string', 'zset']);
    const leased = db.zcard(leases);
    if (leased === 0) return 0;
    db.del(leases);
    db.publish(channel, String(db.incrby(count, leased)));
    return leased;
  },
  parse: int,
});
