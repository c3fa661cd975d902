import type { RenewKind } from '../../engine/Renewer.js';
import { defineScript, int, list } from '../../store/Script.js';
import { lockFixLeaseScript } from './fixLeaseScript.js';

/**
 * KEYS: lock1, holds1, lock2, holds2, ...  ARGV: ttlMs, field1, field2, ...
 * Renews each lock still held by its owner's field and reports 1 for it, 0 for one that has gone.
 * Never creates a key: PEXPIRE does nothing to a missing one. A key of another type counts as gone.
 */
export const lockRenewScript = defineScript<readonly number[]>({
  name: 'lock.renew',
  lua: `
local result = {}
for i = 1, #ARGV - 1 do
  if redis.pcall('hexists', KEYS[2 * i - 1], ARGV[i + 1]) == 1 then
    redis.call('pexpire', KEYS[2 * i - 1], ARGV[1])
    redis.call('pexpire', KEYS[2 * i], ARGV[1])
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
      db.pexpire(lock, Number(ttl));
      db.pexpire(keys[2 * i + 1] ?? '', Number(ttl));
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
