import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { OP_MEMORY_MS } from '../semaphore/opMemory.js';

function assertKind(db: MemoryDb, key: string, expected: 'string' | 'hash'): void {
  const kind = db.type(key);
  if (kind !== 'none' && kind !== expected) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
}

function luaCheck(index: number, expected: 'string' | 'hash'): string {
  return `local kind${index} = redis.call('type', KEYS[${index}])['ok']
if kind${index} ~= 'none' and kind${index} ~= '${expected}' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[${index}] .. ' ' .. kind${index})
end`;
}

/**
 * Every script that publishes also publishes on the channel its last, optional argument names (Redisson's own,
 * with classic PUBLISH; see `LatchKeys.redissonChannel`).
 */
function luaAlsoPublish(argument: number, message: string): string {
  return `if ARGV[${argument}] then redis.call('publish', ARGV[${argument}], '${message}') end`;
}

/** KEYS: count, channel. ARGV: count, publish command, [Redisson's channel]. Redisson's trySetCount: sets the count only if there is none and publishes `1`; 1 if it did. */
export const trySetCountScript = defineScript<boolean>({
  name: 'latch.trySetCount',
  lua: `
${luaCheck(1, 'string')}
if kind1 ~= 'none' then
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], '1')
${luaAlsoPublish(3, '1')}
return 1
`,
  memory: (db, [count = '', channel = ''], [value = '', , also]) => {
    assertKind(db, count, 'string');
    if (db.exists(count) === 1) return 0;
    db.set(count, value);
    db.publish(channel, '1');
    if (also !== undefined) db.publish(also, '1');
    return 1;
  },
  parse: (reply) => int(reply) === 1,
});

/**
 * KEYS: count, channel, ops. ARGV: op id, publish command, [Redisson's channel].
 * Redisson's countDown: decrements; at zero the key is deleted and `0` published. Answers the count left
 * (0 when there was no latch, which stays so). The op id makes a re-sent copy answer the same without
 * counting again: Redisson never retries countDown for this reason, but ioredis re-sends in-flight commands.
 * The ops are forgotten when the latch opens: a late copy then finds no latch and changes nothing.
 */
export const countDownScript = defineScript<number>({
  name: 'latch.countDown',
  lua: `
${luaCheck(1, 'string')}
${luaCheck(3, 'hash')}
local seen = redis.call('hget', KEYS[3], ARGV[1])
if seen then
  return tonumber(seen)
end
if kind1 == 'none' then
  return 0
end
local left = redis.call('decr', KEYS[1])
if left > 0 then
  redis.call('hset', KEYS[3], ARGV[1], left)
  redis.call('pexpire', KEYS[3], ${OP_MEMORY_MS})
  return left
end
redis.call('del', KEYS[1], KEYS[3])
redis.call(ARGV[2], KEYS[2], '0')
${luaAlsoPublish(3, '0')}
return 0
`,
  memory: (db, [count = '', channel = '', ops = ''], [op = '', , also]) => {
    assertKind(db, count, 'string');
    assertKind(db, ops, 'hash');
    const seen = db.hget(ops, op);
    if (seen !== null) return Number(seen);
    if (db.exists(count) === 0) return 0;
    const left = db.incrby(count, -1);
    if (left > 0) {
      db.hset(ops, op, String(left));
      db.pexpire(ops, OP_MEMORY_MS);
      return left;
    }
    db.del(count, ops);
    db.publish(channel, '0');
    if (also !== undefined) db.publish(also, '0');
    return 0;
  },
  parse: int,
});

/** KEYS: count. The count (0 when there is no latch: it opened, or was never set). Read-only. */
export const getCountScript = defineScript<number>({
  name: 'latch.getCount',
  lua: `
${luaCheck(1, 'string')}
return math.max(0, tonumber(redis.call('get', KEYS[1]) or '0') or 0)
`,
  memory: (db, [count = '']) => {
    assertKind(db, count, 'string');
    const value = Number(db.get(count) ?? '0');
    return Number.isInteger(value) ? Math.max(0, value) : 0;
  },
  parse: int,
});

/** KEYS: count, channel, ops. ARGV: publish command, [Redisson's channel]. Redisson's delete: 1 (and `1` published) if there was a count. */
export const deleteLatchScript = defineScript<boolean>({
  name: 'latch.delete',
  lua: `
${luaCheck(1, 'string')}
redis.call('del', KEYS[3])
if redis.call('del', KEYS[1]) == 1 then
  redis.call(ARGV[1], KEYS[2], '1')
  ${luaAlsoPublish(2, '1')}
  return 1
end
return 0
`,
  memory: (db, [count = '', channel = '', ops = ''], [, also]) => {
    assertKind(db, count, 'string');
    db.del(ops);
    if (db.del(count) === 1) {
      db.publish(channel, '1');
      if (also !== undefined) db.publish(also, '1');
      return 1;
    }
    return 0;
  },
  parse: (reply) => int(reply) === 1,
});
