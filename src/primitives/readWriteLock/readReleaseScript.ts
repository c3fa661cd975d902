import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript } from '../../store/Script.js';
import { checkedCall, LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { parseReadWriteRelease, type ReadWriteRelease } from './releaseReply.js';

/**
 * KEYS: lock, channel, reader's timeout prefix, timeout base (`{name}`), holds.
 * ARGV: read field, holdId ('' for an owner that never re-enters), publish command.
 *
 * Redisson's read unlock, owner-checked first and with a first write that needs no memory: one hold and a
 * timeout key go. Redisson drops the last key (`:count`), which is right only when holds end in reverse
 * order; an owner's holds here end in any order (each has its own lease), so the key that runs out first
 * goes and the last one takes its place: the keys left never run out before the holds left (with the last
 * key dropped, a short first hold running out cut a longer second one down to its own end). While the
 * writer holds the lock (its own read holds after a downgrade) nothing else changes. Otherwise the hash
 * lives on for the longest remaining reader timeout, so readers that died (their timeout keys ran out)
 * no longer count; when none remains the lock is deleted and `0` published.
 * When the TTL got shorter, `0` is published too (Redisson does not): a waiting writer's TTL fallback was
 * timed by the old TTL, so one waiter is woken to read the new one.
 */
export const readReleaseScript = defineScript<ReadWriteRelease>({
  name: 'readLock.release',
  lua: `
${LUA_CHECKED_CALL}
local function expiresIn(key)
  local left = redis.call('pttl', key)
  if left == -1 then return math.huge end
  return left
end
if redis.call('type', KEYS[1])['ok'] ~= 'hash' or redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return 0
end
if ARGV[2] ~= '' and checkedCall(KEYS[5], 'hdel', ARGV[2]) == 0 then
  return 0
end
local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if count > 1 then
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
  redis.call('hincrby', KEYS[1], ARGV[1], -1)
else
  redis.call('hdel', KEYS[1], ARGV[1])
end
local last = KEYS[3] .. ':' .. count
-- With one hold (the common case) its key is the one that goes: nothing to compare.
local drop = count
if count > 1 then
  local least = expiresIn(last)
  for i = count - 1, 1, -1 do
    local left = expiresIn(KEYS[3] .. ':' .. i)
    if left < least then drop, least = i, left end
  end
end
if drop == count then
  redis.call('del', last)
else
  redis.call('rename', last, KEYS[3] .. ':' .. drop)
end
if redis.call('hget', KEYS[1], 'mode') == 'write' then
  return 1
end
if redis.call('hlen', KEYS[1]) > 1 then
  local remain = -3
  for _, key in ipairs(redis.call('hkeys', KEYS[1])) do
    local holds = tonumber(redis.call('hget', KEYS[1], key))
    if holds then
      for i = holds, 1, -1 do
        remain = math.max(remain, redis.call('pttl', KEYS[4] .. ':' .. key .. ':rwlock_timeout:' .. i))
      end
    end
  end
  if remain > 0 then
    local before = redis.call('pttl', KEYS[1])
    redis.call('pexpire', KEYS[1], remain)
    redis.call('pexpire', KEYS[5], remain)
    if remain < before then redis.call(ARGV[3], KEYS[2], '0') end
    return 1
  end
end
redis.call('del', KEYS[1], KEYS[5])
redis.call(ARGV[3], KEYS[2], '0')
return 2
`,
  memory: (db: MemoryDb, [lock = '', channel = '', prefix = '', base = '', holds = ''], [field = '', hold = '']) => {
    if (db.type(lock) !== 'hash' || db.hexists(lock, field) === 0) return 0;
    if (hold !== '' && checkedCall(db, holds, () => db.hdel(holds, hold)) === 0) return 0;
    const count = Number(db.hget(lock, field));
    if (count > 1) db.hincrby(lock, field, -1);
    else db.hdel(lock, field);
    dropShortestTimeout(db, prefix, count);
    if (db.hget(lock, 'mode') === 'write') return 1;
    if (db.hlen(lock) > 1) {
      let remain = -3;
      for (const key of db.hkeys(lock)) {
        const holdsOfKey = Number(db.hget(lock, key));
        if (!Number.isInteger(holdsOfKey)) continue;
        for (let i = holdsOfKey; i >= 1; i--) remain = Math.max(remain, db.pttl(`${base}:${key}:rwlock_timeout:${i}`));
      }
      if (remain > 0) {
        const before = db.pttl(lock);
        db.pexpire(lock, remain);
        db.pexpire(holds, remain);
        if (remain < before) db.publish(channel, '0');
        return 1;
      }
    }
    db.del(lock, holds);
    db.publish(channel, '0');
    return 2;
  },
  parse: parseReadWriteRelease,
});

/** A timeout key's remaining life for `dropShortestTimeout`: one without expiry lives forever, a missing one (-2) not at all. */
function expiresIn(db: MemoryDb, key: string): number {
  const left = db.pttl(key);
  return left === -1 ? Infinity : left;
}

/**
 * The Lua's `drop`: of one owner's `count` timeout keys, the one that runs out first goes, and the last one
 * (`:count`) takes its place, so that the keys stay numbered 1..count-1 (Redisson's layout).
 */
function dropShortestTimeout(db: MemoryDb, prefix: string, count: number): void {
  const last = `${prefix}:${count}`;
  let drop = count;
  let least = count > 1 ? expiresIn(db, last) : -Infinity;
  for (let i = count - 1; i >= 1; i--) {
    const left = expiresIn(db, `${prefix}:${i}`);
    if (left < least) {
      drop = i;
      least = left;
    }
  }
  if (drop !== count) {
    const left = db.pttl(last);
    db.set(`${prefix}:${drop}`, db.get(last) ?? '1', left === -1 ? {} : { px: left });
  }
  db.del(last);
}
