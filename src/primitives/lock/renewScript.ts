import type { RenewKind } from '../../engine/Renewer.js';
import { defineScript, int, list } from '../../store/Script.js';
import { lockFixLeaseScript } from './fixLeaseScript.js';

/**
 * KEYS: lock1, holds1, lock2, holds2, ...  ARGV: ttlMs, field1, field2, ...
 * Renews each lock still held by its owner's field and reports 1 for it, 0 for one that has gone. A hold
 * that is its owner's only one gets exactly ttlMs; one the owner also holds otherwise (a fixed lease
 * re-entered with the watchdog) is only lengthened, as a re-entering acquire does, so that the other
 * hold's lease is never cut short. Never creates a key: PEXPIRE does nothing to a missing one. A key of
 * another type counts as gone.
 */
export const lockRenewScript = defineScript<readonly number[]>({
  name: 'lock.renew',
  lua: `
local ttl = tonumber(ARGV[1])
local result = {}
for i = 1, #ARGV - 1 do
  local count = redis.pcall('hget', KEYS[2 * i - 1], ARGV[i + 1])
  if type(count) == 'string' then
    for k = 2 * i - 1, 2 * i do
      if count == '1' or redis.call('pttl', KEYS[k]) < ttl then redis.call('pexpire', KEYS[k], ttl) end
    end
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
`,
  memory: (db, keys, [ttl = '0', ...fields]) =>
    fields.map((field, i) => {
      const lock = keys[2 * i] ?? '';
      if (db.type(lock) !== 'hash' || db.hexists(lock, field) === 0) return 0;
      const only = db.hget(lock, field) === '1';
      for (const key of [lock, keys[2 * i + 1] ?? '']) if (only || db.pttl(key) < Number(ttl)) db.pexpire(key, Number(ttl));
      return 1;
    }),
  parse: (reply) => list(reply).map(int),
});

/** Holds of plain, fair and fenced locks renew alike: the lock hash and its reentrant hold ids. */
export function lockRenewKind(holdsKeyOf: (lockKey: string) => string): RenewKind {
  return {
    script: lockRenewScript,
    pack: (entries, ttlMs) => ({
      keys: entries.flatMap((entry) => [entry.key, holdsKeyOf(entry.key)]),
      args: [ttlMs, ...entries.map((entry) => entry.field)],
    }),
    fix: (target, ttlMs) => ({ script: lockFixLeaseScript, keys: [target.key, holdsKeyOf(target.key)], args: [ttlMs, target.field] }),
  };
}
