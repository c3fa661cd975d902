import type { RenewKind } from '../../engine/Renewer.js';
import { defineScript, int, list } from '../../store/Script.js';
import { LUA_GROUP_NOW, numberOf } from './acquireScript.js';
import { expiryFieldOf, groupLockKeys } from './groupLockKeys.js';

/**
 * KEYS: group hash and holds of each hold. ARGV: ttlMs, then for each hold its `<clientId>:<owner>`, a space and
 * its values' fields joined by `,` (`groupRenewField`: owners and base64 have neither).
 *
 * Redisson's FastMultilockTask renewal, on the server's clock: when every value of a hold is still its owner's
 * with its expiry ahead, each expiry moves to at least `ttlMs` from now (never shortened: a reentrant fixed lease
 * may be longer) and the hash lives at least `ttlMs`, as long as the hold ids of reentrant owners, reporting 1;
 * else 0 (the hold is lost; its release frees the rest). A key of another type counts as gone. The first write
 * (PEXPIRE) needs no memory.
 */
export const groupRenewScript = defineScript<readonly number[]>({
  name: 'groupLock.renew',
  lua: `
${LUA_GROUP_NOW}
local ttl = tonumber(ARGV[1])
local result = {}
for i = 1, #ARGV - 1 do
  local lock, holds = KEYS[2 * i - 1], KEYS[2 * i]
  local me, values = string.match(ARGV[i + 1], '^(%S+) (.*)$')
  local alive = redis.call('type', lock)['ok'] == 'hash'
  local fields = {}
  if alive then
    for value in string.gmatch(values, '[^,]+') do
      local field = value .. ':' .. me .. ':expire_time'
      local expiry = tonumber(redis.call('hget', lock, field))
      if redis.call('hget', lock, value) ~= me or expiry == nil or expiry <= now then
        alive = false
        break
      end
      if expiry < now + ttl then fields[#fields + 1] = field end
    end
  end
  if alive then
    local left = redis.call('pttl', lock)
    if left < ttl then left = ttl end
    redis.call('pexpire', lock, left)
    redis.call('pexpire', holds, left)
    for _, field in ipairs(fields) do redis.call('hset', lock, field, now + ttl) end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
`,
  memory: (db, keys, [ttlArg = '0', ...holds]) => {
    const now = db.time();
    const ttl = Number(ttlArg);
    return holds.map((target, i) => {
      const lock = keys[2 * i] ?? '';
      const holdIds = keys[2 * i + 1] ?? '';
      const space = target.indexOf(' ');
      const me = target.slice(0, space);
      if (db.type(lock) !== 'hash') return 0;
      const fields: string[] = [];
      for (const value of target.slice(space + 1).split(',')) {
        const field = expiryFieldOf(value, me);
        const expiry = numberOf(db.hget(lock, field));
        if (db.hget(lock, value) !== me || expiry === undefined || expiry <= now) return 0;
        if (expiry < now + ttl) fields.push(field);
      }
      const left = Math.max(db.pttl(lock), ttl);
      db.pexpire(lock, left);
      db.pexpire(holdIds, left);
      for (const field of fields) db.hset(lock, field, String(now + ttl));
      return 1;
    });
  },
  parse: (reply) => list(reply).map(int),
});

/** The watchdog's field for one group hold: its owner's `<clientId>:<owner>`, a space, and its values' fields joined by `,`. */
export function groupRenewField(lockName: string, values: readonly string[]): string {
  return `${lockName} ${values.join(',')}`;
}

/** Group holds of any group renew together in one batch: the entry's key is the group hash, its field `groupRenewField`. */
export const groupRenewKind: RenewKind = {
  script: groupRenewScript,
  pack: (targets, ttlMs) => ({
    keys: targets.flatMap((target) => {
      const keys = groupLockKeys(target.key);
      return [keys.lock, keys.holds];
    }),
    args: [ttlMs, ...targets.map((target) => target.field)],
  }),
};
