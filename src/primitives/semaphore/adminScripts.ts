import type { MemoryDb, RedisType } from '../../store/memory/MemoryDb.js';
import { defineScript, int, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { OP_MEMORY_MS } from './opMemory.js';

// Shared by the semaphore and the semaphore with expiring permits: both keep Redisson's STRING count and channel.

function assertKind(db: MemoryDb, key: string, expected: RedisType): void {
  const kind = db.type(key);
  if (kind !== 'none' && kind !== expected) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
}

const CHECK_COUNT = `
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end`;

/** KEYS: count, channel. ARGV: permits, publish command. Redisson's trySetPermits: sets the count only if there is none; 1 if it did. */
export const trySetPermitsScript = defineScript<boolean>({
  name: 'semaphore.trySetPermits',
  lua: `${CHECK_COUNT}
if kind ~= 'none' then
  return 0
end
redis.call('set', KEYS[1], ARGV[1])
redis.call(ARGV[2], KEYS[2], ARGV[1])
return 1
`,
  memory: (db, [count = '', channel = ''], [permits = '']) => {
    assertKind(db, count, 'string');
    if (db.exists(count) === 1) return 0;
    db.set(count, permits);
    db.publish(channel, permits);
    return 1;
  },
  parse: (reply) => int(reply) === 1,
});

/**
 * KEYS: count, channel, ops. ARGV: permits (may be negative), op id, publish command.
 * Redisson's addPermits: adds to the count (creating it) and publishes the new count, which it returns.
 * The op id makes a re-sent copy answer the same count without adding again.
 */
export const addPermitsScript = defineScript<number>({
  name: 'semaphore.addPermits',
  lua: `${CHECK_COUNT}
local opsKind = redis.call('type', KEYS[3])['ok']
if opsKind ~= 'none' and opsKind ~= 'hash' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[3] .. ' ' .. opsKind)
end
local seen = redis.call('hget', KEYS[3], ARGV[2])
if seen then
  return tonumber(seen)
end
local value = redis.call('incrby', KEYS[1], ARGV[1])
redis.call(ARGV[3], KEYS[2], value)
redis.call('hset', KEYS[3], ARGV[2], value)
redis.call('pexpire', KEYS[3], ${OP_MEMORY_MS})
return value
`,
  memory: (db, [count = '', channel = '', ops = ''], [permits = '', op = '']) => {
    assertKind(db, count, 'string');
    assertKind(db, ops, 'hash');
    const seen = db.hget(ops, op);
    if (seen !== null) return Number(seen);
    const value = db.incrby(count, Number(permits));
    db.publish(channel, String(value));
    db.hset(ops, op, String(value));
    db.pexpire(ops, OP_MEMORY_MS);
    return value;
  },
  parse: int,
});

/** KEYS: count. The available permits (0 when there is no count). Read-only. */
export const availablePermitsScript = defineScript<number>({
  name: 'semaphore.availablePermits',
  lua: `${CHECK_COUNT}
return tonumber(redis.call('get', KEYS[1]) or '0') or 0
`,
  memory: (db, [count = '']) => {
    assertKind(db, count, 'string');
    const value = Number(db.get(count) ?? '0');
    return Number.isInteger(value) ? value : 0;
  },
  parse: int,
});

/** KEYS: count, then every other key of the object. Deletes them all; 1 if there was a count. A count of another type is left untouched. */
export const deleteSemaphoreScript = defineScript<boolean>({
  name: 'semaphore.delete',
  lua: `${CHECK_COUNT}
return redis.call('del', unpack(KEYS)) > 0 and kind ~= 'none' and 1 or 0
`,
  memory: (db, keys) => {
    const [count = ''] = keys;
    assertKind(db, count, 'string');
    const existed = db.exists(count);
    db.del(...keys);
    return existed;
  },
  parse: (reply) => int(reply) === 1,
});
