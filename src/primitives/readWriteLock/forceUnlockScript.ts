import { defineScript } from '../../store/Script.js';
import { lockKind, LUA_LOCK_KIND, parseForceUnlock, type ForceUnlockReply } from '../lock/lockKind.js';

/**
 * KEYS: lock, channel, holds, then the fair line's queue and timeouts. ARGV: publish command, readers' timeout
 * base (`{name}`).
 *
 * Redisson's forceUnlock of the side that holds it: deletes the lock whoever holds it and publishes `0`
 * after a read lock (a writer may go) or `1` after a write lock (every waiter may try). The readers'
 * timeout keys and rxlock's hold ids go too, so nothing is left to expire later. 1 if there was a lock; the
 * kind's name, changing nothing, when it is a plain or fair lock (`lockKind`).
 */
export const readWriteLockForceUnlockScript = defineScript<ForceUnlockReply>({
  name: 'readWriteLock.forceUnlock',
  lua: `
${LUA_LOCK_KIND}
local kind = lockKind(KEYS[1], KEYS[4], KEYS[5])
if kind ~= 'readWriteLock' then return kind or 0 end
local mode = redis.call('hget', KEYS[1], 'mode')
local fields = redis.call('hgetall', KEYS[1])
for i = 1, #fields, 2 do
  local field, count = fields[i], tonumber(fields[i + 1])
  if field ~= 'mode' and string.sub(field, -6) ~= ':write' then
    for k = 1, count do redis.call('del', ARGV[2] .. ':' .. field .. ':rwlock_timeout:' .. k) end
  end
end
redis.call('del', KEYS[1], KEYS[3])
redis.call(ARGV[1], KEYS[2], mode == 'write' and '1' or '0')
return 1
`,
  memory: (db, [lock = '', channel = '', holds = '', queue = '', timeouts = ''], [, base = '']) => {
    const kind = lockKind(db, lock, queue, timeouts);
    if (kind !== 'readWriteLock') return kind ?? 0;
    const mode = db.hget(lock, 'mode');
    for (const field of db.hkeys(lock)) {
      if (field === 'mode' || field.endsWith(':write')) continue;
      for (let k = 1; k <= Number(db.hget(lock, field)); k++) db.del(`${base}:${field}:rwlock_timeout:${k}`);
    }
    db.del(lock, holds);
    db.publish(channel, mode === 'write' ? '1' : '0');
    return 1;
  },
  parse: parseForceUnlock,
});
