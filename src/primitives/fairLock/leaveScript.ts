import { defineScript, int } from '../../store/Script.js';
import { LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { handedOver } from '../handedOver.js';
import { FAIR_LUA_FUNCTIONS, FairScriptRun } from './fairQueue.js';

/**
 * 0: nothing of this caller's was held; 1: one hold released, others remain; 2: unlocked and handed on; 3
 * (`HANDED_OVER`): unlocked and given straight to the head of the queue.
 */
export type FairLeave = 0 | 1 | 2 | 3;

/**
 * A waiter gives up (timeout, unsubscribe), or takes back an attempt nobody will use. Unless it keeps its
 * place (`enqueue` 1: an attempt whose outcome is unknown, with the wait going on), it leaves the queue at
 * once, if the place there is this acquisition's (a reentrant owner's other acquisition may have taken it
 * over), and every deadline behind it comes one share closer, as in Redisson's `acquireFailed`. A grant or
 * hand-off that reached this acquisition is released, which hands the lock on; so is the free lock if it
 * left the head of the queue. Sent twice, the second run changes nothing.
 */
export const fairLockLeaveScript = defineScript<FairLeave>({
  name: 'fairLock.leave',
  lua: `
${LUA_CHECKED_CALL}
${FAIR_LUA_FUNCTIONS}
local position = nil
if not enqueue and on(4, 'zscore', field) then
  local registered = on(5, 'hget', field)
  if not registered or string.match(registered, '^%S+ %S+ %S+ (%S+)') == waitId then
    local queue = on(3, 'lrange', '0', '-1')
    for i = 1, #queue do
      if queue[i] == field then
        position = i
        break
      end
    end
    on(5, 'hdel', field)
    on(3, 'lrem', '0', field)
    on(4, 'zrem', field)
    if position then moveUpFrom(position) end
    -- The last one out takes the waiters hash (the grant count) with it.
    if on(3, 'llen') == 0 then on(5, 'del') end
  end
end
local count = on(1, 'hget', field)
if count and (hold == '' or on(2, 'hexists', hold) == 1) then return releaseHold(count) end
if position == 1 and redis.call('exists', KEYS[1]) == 0 then handOff() end
return 0
`,
  memory: (db, keys, argv) => {
    const run = new FairScriptRun(db, keys, argv, false);
    const { field, hold } = run;
    let position: number | undefined;
    if (!run.enqueue && db.zscore(run.timeouts, field) !== null) {
      const registered = db.hget(run.waiters, field);
      if (registered === null || registered.split(' ')[3] === run.waitId) {
        const found = db.lrange(run.queue).indexOf(field);
        if (found !== -1) position = found + 1;
        db.hdel(run.waiters, field);
        db.lrem(run.queue, field);
        db.zrem(run.timeouts, field);
        if (position !== undefined) run.moveUpFrom(position);
        if (db.llen(run.queue) === 0) db.del(run.waiters);
      }
    }
    const count = db.hget(run.lock, field);
    if (count !== null && (hold === '' || db.hexists(run.holds, hold) === 1)) return run.releaseHold(count);
    if (position === 1 && db.exists(keys[0] ?? '') === 0) run.handOff();
    return 0;
  },
  parse: (reply) => int(reply) as FairLeave,
  handsOver: handedOver,
});
