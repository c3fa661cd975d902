import { defineScript } from '../../store/Script.js';
import { lockKind, LUA_LOCK_KIND, parseForceUnlock, type ForceUnlockReply } from '../lock/lockKind.js';
import { FAIR_LUA_PRELUDE, FairScriptRun, type FairArgs } from './fairQueue.js';

/**
 * KEYS and ARGV: the fair lock's own (`fairLockKeys(name).list`, `fairArgv` with `FORCE_UNLOCK_ARGS`: only the
 * publish command, the channel prefix and the waiters' timeout matter).
 *
 * Redisson's fair-lock forceUnlock, built on the fair lock's own script prelude: waiters at the head of the
 * queue whose time ran out leave it, the lock is deleted whoever holds it, and the head of the queue hears
 * Redisson's `0` on its own channel, so that its next attempt takes the lock. Unlike Redisson it wakes the
 * head even when the lock was not held, so a queue stuck behind dead waiters moves on. 1 if there was a lock;
 * the kind's name, changing nothing, when it is a plain or read-write lock (`lockKind`).
 */
export const fairLockForceUnlockScript = defineScript<ForceUnlockReply>({
  name: 'fairLock.forceUnlock',
  lua: `
${LUA_LOCK_KIND}
local kind = lockKind(KEYS[1], KEYS[3], KEYS[4])
if kind ~= 'fairLock' then return kind or 0 end
${FAIR_LUA_PRELUDE}
local held = redis.call('exists', KEYS[1])
redis.call('del', KEYS[1], KEYS[2])
handOff()
return held
`,
  memory: (db, keys, argv) => {
    const kind = lockKind(db, keys[0] ?? '', keys[2] ?? '', keys[3] ?? '');
    if (kind !== 'fairLock') return kind ?? 0;
    const run = new FairScriptRun(db, keys, argv);
    const held = db.exists(run.lock);
    db.del(run.lock, run.holds);
    run.handOff();
    return held;
  },
  parse: parseForceUnlock,
});

/** The fair arguments of a force-unlock: a caller that holds nothing and waits for nothing, never handing over directly. */
export const FORCE_UNLOCK_ARGS: Omit<FairArgs, 'publishCommand' | 'channelPrefix' | 'waiterTimeoutMs'> = {
  leaseMs: 0,
  field: '',
  holdId: '',
  waitId: '',
  fencing: false,
  enqueue: false,
  direct: false,
  confirmMs: 0,
};
