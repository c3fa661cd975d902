import { defineScript, int } from '../../store/Script.js';
import { checkCount, countValue, LUA_CHECK_COUNT } from '../semaphore/countValue.js';
import { luaRecallOp, recallOp } from '../semaphore/recallOp.js';

/**
 * Every script that publishes also publishes on the channel its last, optional argument names (Redisson's own,
 * with classic PUBLISH; see `LatchKeys.redissonChannel`).
 */
function luaAlsoPublish(argument: number, message: string): string {
  return `if ARGV[${argument}] then redis.call('publish', ARGV[${argument}], '${message}') end`;
}

/**
 * KEYS: count, channel, ops. ARGV: count, op id, publish command, [Redisson's channel].
 * Redisson's trySetCount: sets the count only if there is none and publishes `1`; 1 if it did. The op id makes
 * a re-sent copy answer the same (it would otherwise find the count it set, and answer 0).
 */
export const trySetCountScript = defineScript<boolean>({
  name: 'latch.trySetCount',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[3]', 'ARGV[2]')}
if kind ~= 'none' then
  return remember(0)
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[3], KEYS[2], '1')
${luaAlsoPublish(4, '1')}
return remember(1)
`,
  memory: (db, [count = '', channel = '', ops = ''], [value = '', opId = '', , also]) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    if (db.exists(count) === 1) return op.remember(0);
    db.set(count, value);
    db.publish(channel, '1');
    if (also !== undefined) db.publish(also, '1');
    return op.remember(1);
  },
  parse: (reply) => int(reply) === 1,
});

/**
 * KEYS: count, channel, ops. ARGV: op id, publish command, [Redisson's channel].
 * Redisson's countDown: decrements; at zero the key is deleted and `0` published. Answers the count left
 * (0 when there was no latch, which stays so). The op id makes a re-sent copy answer the same without
 * counting again: Redisson never retries countDown for this reason, but ioredis re-sends in-flight commands.
 * Every outcome is remembered, the opening one and one on no latch too: a copy may come after a new count
 * was set, and must not count the new round down.
 */
export const countDownScript = defineScript<number>({
  name: 'latch.countDown',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[3]', 'ARGV[1]')}
if kind == 'none' then
  return remember(0)
end
local left = redis.call('decr', KEYS[1])
if left > 0 then
  return remember(left)
end
redis.call('del', KEYS[1])
redis.call(ARGV[2], KEYS[2], '0')
${luaAlsoPublish(3, '0')}
return remember(0)
`,
  memory: (db, [count = '', channel = '', ops = ''], [opId = '', , also]) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    if (db.exists(count) === 0) return op.remember(0);
    const left = db.incrby(count, -1);
    if (left > 0) return op.remember(left);
    db.del(count);
    db.publish(channel, '0');
    if (also !== undefined) db.publish(also, '0');
    return op.remember(0);
  },
  parse: int,
});

/** KEYS: count. The count (0 when there is no latch: it opened, or was never set). Read-only. */
export const getCountScript = defineScript<number>({
  name: 'latch.getCount',
  lua: `
${LUA_CHECK_COUNT}
return math.max(0, countValue(redis.call('get', KEYS[1])) or 0)
`,
  memory: (db, [count = '']) => {
    checkCount(db, count);
    return Math.max(0, countValue(db.get(count)) ?? 0);
  },
  parse: int,
});

/**
 * KEYS: count, channel. ARGV: publish command, [Redisson's channel]. Redisson's delete: 1 (and `1` published) if
 * there was a count. The op memory is left to expire by itself, so that a copy of a countDown re-sent after the
 * delete (and maybe a new count) still finds its reply and counts nothing.
 */
export const deleteLatchScript = defineScript<boolean>({
  name: 'latch.delete',
  lua: `
${LUA_CHECK_COUNT}
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[1], KEYS[2], '1')
  ${luaAlsoPublish(2, '1')}
  return 1
end
return 0
`,
  memory: (db, [count = '', channel = ''], [, also]) => {
    checkCount(db, count);
    if (db.del(count) === 1) {
      db.publish(channel, '1');
      if (also !== undefined) db.publish(also, '1');
      return 1;
    }
    return 0;
  },
  parse: (reply) => int(reply) === 1,
});
