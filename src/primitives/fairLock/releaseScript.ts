import type { ReleaseReply } from '../../engine/Hold.js';
import { defineScript, int } from '../../store/Script.js';
import { LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { handedOver } from '../handedOver.js';
import { FAIR_LUA_FUNCTIONS, FairScriptRun } from './fairQueue.js';

/**
 * The holder's release. Ownership is checked before anything of the hold changes; a release sent twice
 * answers `not-held` the second time. The final unlock hands the lock to the head of the queue: an rxlock
 * head that is listening gets it directly (its grant travels in the message, so it needs no command of its
 * own); any other head (Redisson's, or one whose client is not listening) hears Redisson's `0` on its own
 * channel only, and takes the lock with its next attempt. A release that finds the lock already gone
 * (it expired) passes it on the same way, as Redisson's does.
 */
export const fairLockReleaseScript = defineScript<ReleaseReply>({
  name: 'fairLock.release',
  lua: `
-- The common case first, before the helper functions are set up: this hold's only count, and nobody in the queue
-- once it is released. A call that fails here (a key of another type) writes nothing and leaves the caller to
-- the general path below, which reports it; so does a hold id not found (an earlier hold's re-sent release).
local count, unlocked, first = redis.pcall('hget', KEYS[1], ARGV[2]), false, nil
if count == '1' and (ARGV[3] == '' or redis.pcall('hdel', KEYS[2], ARGV[3]) == 1) then
  redis.call('del', KEYS[1], KEYS[2])
  first = redis.pcall('lindex', KEYS[3], '0')
  if not first then return 2 end
  unlocked = true
end
${LUA_CHECKED_CALL}
${FAIR_LUA_FUNCTIONS}
-- Unlocked above with somebody in the queue (first: the head, unless the queue key is of another type).
if unlocked then
  if type(first) ~= 'string' then first = nil end
  return handOnAfterUnlock(first)
end
count = on(1, 'hget', field)
if not count then
  if redis.call('exists', KEYS[1]) == 0 then handOff() end
  return 0
end
return releaseHold(count)
`,
  memory: (db, keys, argv) => {
    const run = new FairScriptRun(db, keys, argv, false);
    const count = db.hget(run.lock, run.field);
    if (count === null) {
      if (db.exists(keys[0] ?? '') === 0) run.handOff();
      return 0;
    }
    return run.releaseHold(count);
  },
  parse: (reply) => (int(reply) === 0 ? 'not-held' : 'released'),
  handsOver: handedOver,
});
