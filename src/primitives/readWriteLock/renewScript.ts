import type { RenewKind } from '../../engine/Renewer.js';
import { defineScript, int, list } from '../../store/Script.js';
import { readTimeoutPrefix, readWriteLockKeys } from './readWriteLockKeys.js';

/**
 * KEYS: lock1, holds1, timeoutPrefix1, lock2, ...  ARGV: ttlMs, field1, field2, ...
 *
 * Renews each hold whose field (read or write) is still in the hash and reports 1 for it, 0 for one that
 * has gone. The hash TTL only ever grows here (to at least ttlMs), so renewing one holder never cuts
 * short another's longer lease. A reader also renews its own timeout keys, and only its own: readers
 * that stopped renewing (died) age out, and the read unlock then shrinks the hash TTL to the live ones.
 * A reader's only hold gets exactly ttlMs; with more than one (a fixed lease re-entered with the watchdog)
 * its timeout keys are only lengthened, or the read unlock would shrink the hash below the fixed lease.
 * Never creates a key. A key of another type counts as gone.
 */
export const readWriteRenewScript = defineScript<readonly number[]>({
  name: 'readWriteLock.renew',
  lua: `
local ttl = tonumber(ARGV[1])
local result = {}
for i = 1, #ARGV - 1 do
  local lock, holds, prefix = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local count = redis.pcall('hget', lock, ARGV[i + 1])
  if type(count) == 'string' and tonumber(count) then
    if redis.call('pttl', lock) < ttl then redis.call('pexpire', lock, ttl) end
    local left = redis.call('pttl', lock)
    if left > 0 then redis.call('pexpire', holds, left) end
    for k = 1, tonumber(count) do
      local timeout = prefix .. ':' .. k
      if count == '1' or redis.call('pttl', timeout) < ttl then redis.call('pexpire', timeout, ttl) end
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
`,
  memory: (db, keys, [ttlArg = '0', ...fields]) =>
    fields.map((field, i) => {
      const [lock = '', holds = '', prefix = ''] = keys.slice(3 * i, 3 * i + 3);
      const ttl = Number(ttlArg);
      if (db.type(lock) !== 'hash') return 0;
      const count = Number(db.hget(lock, field) ?? Number.NaN);
      if (!Number.isInteger(count)) return 0;
      if (db.pttl(lock) < ttl) db.pexpire(lock, ttl);
      const left = db.pttl(lock);
      if (left > 0) db.pexpire(holds, left);
      for (let k = 1; k <= count; k++) if (count === 1 || db.pttl(`${prefix}:${k}`) < ttl) db.pexpire(`${prefix}:${k}`, ttl);
      return 1;
    }),
  parse: (reply) => list(reply).map(int),
});

/** Read and write holds renew together in one batch: the entry's key is the lock hash, its field the hold's field. */
export const readWriteRenewKind: RenewKind = {
  script: readWriteRenewScript,
  pack: (entries, ttlMs) => ({
    keys: entries.flatMap((entry) => {
      const keys = readWriteLockKeys(entry.key);
      return [keys.lock, keys.holds, readTimeoutPrefix(keys, entry.field)];
    }),
    args: [ttlMs, ...entries.map((entry) => entry.field)],
  }),
};
