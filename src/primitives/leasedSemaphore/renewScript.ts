import type { RenewKind } from '../../engine/Renewer.js';
import { defineScript, int, list } from '../../store/Script.js';
import { leasedSemaphoreKeys } from './leasedSemaphoreKeys.js';
import { LUA_NOW, LUA_UNHEX, unhex } from './permitIds.js';

/**
 * KEYS: timeouts1, timeouts2, ...  ARGV: ttlMs, ids1, ids2, ... (a hold's permit ids, hex, comma-separated).
 *
 * For permits held without a fixed lease: moves every id of a hold to expire ttlMs from now and reports 1,
 * or reports 0 when any of them has expired or gone (the hold is lost; the rest expire by themselves).
 * Never adds an id (ZADD XX). A key of another type counts as gone.
 */
export const leasedRenewScript = defineScript<readonly number[]>({
  name: 'leasedSemaphore.renew',
  lua: `
${LUA_NOW}
${LUA_UNHEX}
local ttl = tonumber(ARGV[1])
local result = {}
for i = 1, #KEYS do
  local members, alive = {}, 1
  for id in string.gmatch(ARGV[i + 1], '[^,]+') do
    local member = unhex(id)
    local score = redis.pcall('zscore', KEYS[i], member)
    if type(score) ~= 'string' or tonumber(score) <= now then alive = 0 end
    members[#members + 1] = member
  end
  if alive == 1 then
    for _, member in ipairs(members) do redis.call('zadd', KEYS[i], 'XX', now + ttl, member) end
  end
  result[i] = alive
end
return result
`,
  memory: (db, keys, [ttl = '0', ...holds]) =>
    holds.map((ids, i) => {
      const timeouts = keys[i] ?? '';
      if (db.type(timeouts) !== 'zset') return 0;
      const now = db.time();
      const members = ids.split(',').map(unhex);
      if (!members.every((member) => (db.zscore(timeouts, member) ?? -Infinity) > now)) return 0;
      for (const member of members) db.zadd(timeouts, now + Number(ttl), member);
      return 1;
    }),
  parse: (reply) => list(reply).map(int),
});

/** Permits held without `leaseMs` are renewed by the watchdog: the entry's key is the count, its field the hold's permit ids. */
export const leasedRenewKind: RenewKind = {
  script: leasedRenewScript,
  pack: (entries, ttlMs) => ({
    keys: entries.map((entry) => leasedSemaphoreKeys(entry.key).timeouts),
    args: [ttlMs, ...entries.map((entry) => entry.field)],
  }),
};
