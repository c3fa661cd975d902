import { FAIR_LUA_PRELUDE, FairScriptRun } from '../../primitives/fairLock/fairQueue.js';
import { defineScript, int } from '../../store/Script.js';

/**
 * KEYS and ARGV: the fair lock's own (`fairLockKeys(name).list`, `fairArgv`; only the publish command and the
 * channel prefix matter, and direct hand-off must be off).
 *
 * Redisson's fair-lock forceUnlock, built on the fair lock's own script prelude: waiters at the head of the
 * line whose time ran out leave it, the lock is deleted whoever holds it, and the head of the line hears
 * Redisson's `0` on its own channel, so that its next attempt takes the lock. Unlike Redisson it wakes the
 * head even when the lock was not held, so a line stuck behind dead waiters moves on. 1 if there was a lock.
 */
export const fairLockForceUnlockScript = defineScript<boolean>({
  name: 'cli.fairLock.forceUnlock',
  lua: `
${FAIR_LUA_PRELUDE}
local held = redis.call('exists', KEYS[1])
redis.call('del', KEYS[1], KEYS[2])
handOff()
return held
`,
  memory: (db, keys, argv) => {
    const run = new FairScriptRun(db, keys, argv);
    const held = db.exists(run.lock);
    db.del(run.lock, run.holds);
    run.handOff();
    return held;
  },
  parse: (reply) => int(reply) === 1,
});
