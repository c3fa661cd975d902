import type { ReleaseReply } from '../../engine/HeldLease.js';
import { defineScript, int } from '../../store/Script.js';
import { handedOver } from '../handedOver.js';
import { FAIR_LUA_FUNCTIONS, FairScriptRun } from './fairQueue.js';

/**
 * The holder's release. Ownership is checked before anything of the hold changes; a release sent twice
 * answers `not-held` the second time. The final unlock hands the lock to the head of the line: an rxlock
 * head that is listening gets it directly (its grant travels in the message, so it needs no command of its
 * own); any other head (Redisson's, or one whose client is not listening) hears Redisson's `0` on its own
 * channel only, and takes the lock with its next attempt. A release that finds the lock already gone
 * (it expired) passes it on the same way, as Redisson's does.
 */
export const fairLockReleaseScript = defineScript<ReleaseReply>({
  name: 'fairLock.release',
  lua: `
${FAIR_LUA_FUNCTIONS}
local count = on(1, 'hget', field)
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
