import { defineScript, int } from '../../store/Script.js';
import { checkCount, countValue, LUA_CHECK_COUNT } from './countValue.js';
import { luaRecallOp, recallOp } from './recallOp.js';

/**
 * KEYS: count, ops. ARGV: op id.
 * Redisson's drainPermits: sets the count to 0 and answers what it was (0 without a count), so a negative count
 * comes back as it was, as `java.util.concurrent.Semaphore` does. Redisson's SET also drops a TTL set by
 * `trySetPermits(permits, { ttlMs })`; this one puts it back. Nothing is published: no permit came back. The op
 * id makes a re-sent copy answer what the first took (it would otherwise find 0).
 */
export const drainPermitsScript = defineScript<number>({
  name: 'semaphore.drainPermits',
  lua: `
${LUA_CHECK_COUNT}
${luaRecallOp('KEYS[2]', 'ARGV[1]')}
if kind == 'none' then
  return remember(0)
end
local value = countValue(redis.call('get', KEYS[1]))
local ttl = redis.call('pttl', KEYS[1])
redis.call('set', KEYS[1], 0)
if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
return remember(value)
`,
  memory: (db, [count = '', ops = ''], [opId = '']) => {
    checkCount(db, count);
    const op = recallOp(db, ops, opId);
    if (op.reply !== undefined) return op.reply;
    const value = countValue(db.get(count));
    if (value === undefined) return op.remember(0);
    const ttl = db.pttl(count);
    db.set(count, '0');
    if (ttl > 0) db.pexpire(count, ttl);
    return op.remember(value);
  },
  parse: int,
});
