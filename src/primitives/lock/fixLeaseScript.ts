import { defineScript, int, list } from '../../store/Script.js';

/**
 * KEYS: lock, holds. ARGV: ttlMs, field. Reply: `{1}` held by this owner, `{0}` not (the shape of
 * `lock.renew`'s reply for one hold: it is reached through the lock's `RenewKind`).
 *
 * Sets one hold's key to a fixed TTL (`multiLock$`, once every member is held). A key whose owner holds it
 * only this once gets exactly `ttlMs`, shorter than the watchdog's; one the owner also holds otherwise (an
 * enclosing `withLock` re-entered) is only lengthened, as a re-entering acquire does, so that those other
 * holds are never cut short. Never creates a key.
 */
export const lockFixLeaseScript = defineScript<readonly number[]>({
  name: 'lock.fixLease',
  lua: `
local count = redis.pcall('hget', KEYS[1], ARGV[2])
if type(count) ~= 'string' then
  return {0}
end
local ttl = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  if count == '1' or redis.call('pttl', key) < ttl then redis.call('pexpire', key, ttl) end
end
return {1}
`,
  memory: (db, keys, [ttl = '0', field = '']) => {
    const [lock = ''] = keys;
    if (db.type(lock) !== 'hash' || db.hexists(lock, field) === 0) return [0];
    const only = db.hget(lock, field) === '1';
    for (const key of keys) if (only || db.pttl(key) < Number(ttl)) db.pexpire(key, Number(ttl));
    return [1];
  },
  parse: (reply) => list(reply).map(int),
});
