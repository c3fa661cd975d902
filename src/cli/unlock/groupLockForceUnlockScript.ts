import { defineScript, int } from '../../store/Script.js';
import { GROUP_RELEASED } from '../../primitives/groupLock/releaseScript.js';
import { expectTypes, LUA_EXPECT_TYPES } from './expectTypes.js';

/**
 * KEYS: group hash, channel, holds. ARGV: publish command.
 *
 * Frees every value of a group lock at once, whoever holds it: Redisson's RedissonFasterMultiLock `forceUnlock`
 * for all its values (the CLI does not know which values a group's holders asked for). The hash and rxlock's
 * hold ids go, and `1` is published, which wakes every waiter of the group, Redisson's and rxlock's. Answers how
 * many values were locked (held or not).
 */
export const groupLockForceUnlockScript = defineScript<number>({
  name: 'cli.groupLock.forceUnlock',
  lua: `
${LUA_EXPECT_TYPES}
local wrong = expectTypes({'hash'})
if wrong then return wrong end
local values = 0
for _, field in ipairs(redis.call('hkeys', KEYS[1])) do
  if not string.find(field, ':', 1, true) then values = values + 1 end
end
if redis.call('del', KEYS[1]) == 0 then return 0 end
redis.call('del', KEYS[3])
redis.call(ARGV[1], KEYS[2], '${GROUP_RELEASED}')
return values
`,
  memory: (db, keys) => {
    const [group = '', channel = '', holds = ''] = keys;
    expectTypes(db, keys, ['hash']);
    const values = db.hkeys(group).filter((field) => !field.includes(':')).length;
    if (db.del(group) === 0) return 0;
    db.del(holds);
    db.publish(channel, GROUP_RELEASED);
    return values;
  },
  parse: int,
});
