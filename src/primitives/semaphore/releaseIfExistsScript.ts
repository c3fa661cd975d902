import { defineScript, int } from '../../store/Script.js';
import { checkCount, LUA_CHECK_COUNT } from './countValue.js';
import { luaRecallOp, recallOp } from './recallOp.js';

/**
 * KEYS: count, channel, ops. ARGV: permits, op id, publish command.
 * Redisson's releaseIfExists (4.0.0): adds the permits and publishes the new count only when the semaphore has a
 * count (one that expired or was deleted is not brought back); 1 if it did. The op id makes a re-sent copy
 * answer the same without adding again.
 */
export const releaseIfExistsScript = defineScript<boolean>({
  name: 'semaphore.releaseIfExists',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[3]', 'ARGV[2]')}
if kind == 'none' then
  return remember(0)
end
local value = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[3], KEYS[2], value)
return remember(1)
`,
  memory: (db, [count = '', channel = '', ops = ''], [permits = '', opId = '']) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    if (db.exists(count) === 0) return op.remember(0);
    const value = db.incrby(count, Number(permits));
    db.publish(channel, String(value));
    return op.remember(1);
  },
  parse: (reply) => int(reply) === 1,
});
