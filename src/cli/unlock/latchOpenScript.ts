import { defineScript, int } from '../../store/Script.js';
import { expectTypes, LUA_EXPECT_TYPES } from './expectTypes.js';

/**
 * KEYS: latch, channel. ARGV: publish command, [Redisson's own channel where it differs: see
 * `LatchKeys.redissonChannel`].
 *
 * Opens a latch whatever its count, as a countDown reaching zero does: deletes the count (a missing latch
 * has count 0) and publishes Redisson's zero-count message `0`, which releases everyone awaiting it. 1 if
 * there was a count. rxlock's op memory stays until it expires, so that a countDown re-sent afterwards (and
 * maybe after a new count) still finds its reply and counts nothing.
 */
export const latchOpenScript = defineScript<boolean>({
  name: 'cli.latch.open',
  lua: `
${LUA_EXPECT_TYPES}
local wrong = expectTypes({'string'})
if wrong then return wrong end
if redis.call('del', KEYS[1]) == 0 then return 0 end
redis.call(ARGV[1], KEYS[2], '0')
if ARGV[2] then redis.call('publish', ARGV[2], '0') end
return 1
`,
  memory: (db, keys, [, also]) => {
    const [latch = '', channel = ''] = keys;
    expectTypes(db, keys, ['string']);
    if (db.del(latch) === 0) return 0;
    db.publish(channel, '0');
    if (also !== undefined) db.publish(also, '0');
    return 1;
  },
  parse: (reply) => int(reply) === 1,
});
