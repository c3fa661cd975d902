import { defineScript, int, ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';

/**
 * KEYS: lock, channel, holds. ARGV: publish command, readers' timeout base (`{name}`).
 *
 * Redisson's forceUnlock of the side that holds it: deletes the lock whoever holds it and publishes `0`
 * after a read lock (a writer may go) or `1` after a write lock (every waiter may try). The readers'
 * timeout keys and rxlock's hold ids go too, so nothing is left to expire later. 1 if there was a lock.
 */
export const readWriteLockForceUnlockScript = defineScript<boolean>({
  name: 'cli.readWriteLock.forceUnlock',
  lua: `
local kind = redis.call('type', KEYS[1])['ok']
if kind == 'none' then return 0 end
local mode = kind == 'hash' and redis.call('hget', KEYS[1], 'mode')
if mode ~= 'read' and mode ~= 'write' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. kind)
end
local fields = redis.call('hgetall', KEYS[1])
for i = 1, #fields, 2 do
  local field, count = fields[i], tonumber(fields[i + 1])
  if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
    for k = 1, count do redis.call('del', ARGV[2] .. ':' .. field .. ':rwlock_timeout:' .. k) end
  end
end
redis.call('del', KEYS[1], KEYS[3])
redis.call(ARGV[1], KEYS[2], mode == 'write' and '1' or '0')
return 1
`,
  memory: (db, [lock = '', channel = '', holds = ''], [, base = '']) => {
    const kind = db.type(lock);
    if (kind === 'none') return 0;
    const mode = kind === 'hash' ? db.hget(lock, 'mode') : null;
    if (mode !== 'read' && mode !== 'write') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    for (const field of db.hkeys(lock)) {
      const count = Number(db.hget(lock, field));
      if (field === 'mode' || !Number.isInteger(count) || field.endsWith(':write')) continue;
      for (let k = 1; k <= count; k++) db.del(`${base}:${field}:rwlock_timeout:${k}`);
    }
    db.del(lock, holds);
    db.publish(channel, mode === 'write' ? '1' : '0');
    return 1;
  },
  parse: (reply) => int(reply) === 1,
});
