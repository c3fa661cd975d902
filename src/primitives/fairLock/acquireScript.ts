import { defineScript, int, list, REENTRY_REPLY, ScriptError, type Reply } from '../../store/Script.js';
import { LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { isHoldCount, luaNotALock, LUA_IS_HOLD_COUNT, notALock } from '../lock/lockKind.js';
import { FAIR_LUA_FUNCTIONS, FairScriptRun } from './fairQueue.js';

/**
 * Granted with a fencing token (-1 without fencing), or queued with how long until it is worth asking
 * again and the server's time in µs when the script ran (0 when it did not need it: a single try).
 * Shaped as the engine's `AttemptReply`.
 */
export type FairAttempt =
  { readonly granted: true; readonly grant: number } | { readonly granted: false; readonly retryInMs: number; readonly serverUs?: number };

/**
 * Redisson's fair acquire, plus what rxlock waiters need. In order:
 * 1. Already this hold's (a release handed it over, or this attempt ran before): granted again without
 *    counting twice. The lease is re-armed, so that it counts from this attempt.
 * 2. A reentrant owner that holds it re-enters.
 * 3. Free, and nobody is waiting or this caller is the head of the queue: granted; every deadline behind
 *    comes one share closer.
 * 4. Otherwise (unless it is a single try) the caller joins the queue, or refreshes its place: its deadline
 *    becomes at least `now + (position + 1) * waiterTimeoutMs`, so a live waiter is never dropped, and its
 *    hand-off details are registered. The reply says when to look again: when the lock's TTL or the head's
 *    deadline runs out, and at least every third of `waiterTimeoutMs` to keep its place.
 * A grant writes the fencing token and the hold id before the lock hash, and a head leaves the queue only
 * once it holds the lock: a key of the wrong type stops the script before anything half done. A lock hash
 * without a TTL whose values are not all hold counts is another application's: an error, not a wait for ever.
 */
export const fairLockAcquireScript = defineScript<FairAttempt>({
  name: 'fairLock.acquire',
  lua: `
${LUA_CHECKED_CALL}
-- Grants the lock to this caller (size: the lock hash's length before), token and hold id first. Defined
-- before the helper functions, as the common case below needs nothing else.
local function grant(size)
  local lease, hold, token = ARGV[1], ARGV[3], -1
  if string.find(ARGV[5], 'f', 1, true) then token = checkedCall(KEYS[6], 'incr') end
  if hold ~= '' then checkedCall(KEYS[2], 'hset', hold, '1') end
  checkedCall(KEYS[1], 'hincrby', ARGV[2], '1')
  local ttl = lease
  if size > 0 then
    local left = checkedCall(KEYS[1], 'pttl')
    if left >= tonumber(lease) then ttl = string.format('%d', left) end
  end
  if ttl == lease then checkedCall(KEYS[1], 'pexpire', lease) end
  if hold ~= '' then checkedCall(KEYS[2], 'pexpire', ttl) end
  return {1, token, 0}
end

-- The common case first, before the helper functions are set up: the lock is free and nobody is in the queue.
-- A call that fails here (a lock key of another type) leaves the caller to the general path, which reports it.
local freeSize = redis.pcall('hlen', KEYS[1])
if freeSize == 0 and redis.call('exists', KEYS[3]) == 0 then return grant(0) end
${FAIR_LUA_FUNCTIONS}

local size = freeSize
if type(size) ~= 'number' then size = on(1, 'hlen') end
headOfQueue()
local mine = size > 0 and on(1, 'hexists', field) == 1
if mine and (hold == '' or on(2, 'hexists', hold) == 1) then
  -- Granted by an earlier copy of this attempt, or handed over: the lock and its hold id last the lease from now.
  if on(1, 'pttl') < leaseMs then on(1, 'pexpire', lease) end
  if hold ~= '' and on(2, 'pttl') < leaseMs then on(2, 'pexpire', lease) end
  local token = -1
  if fencing then token = tonumber(on(6, 'get') or '-1') end
  return {1, token, 0}
end
-- Redisson's non-reentrant fair lock: its owner asking again is an error, not a second hold.
if mine and string.find(flags, 'n', 1, true) then return redis.error_reply('${REENTRY_REPLY} ' .. KEYS[1]) end
if mine then return grant(size) end
if size == 0 and (not head or head == field) then
  local reply = grant(0)
  if head then
    on(5, 'hdel', field)
    on(3, 'lpop')
    on(4, 'zrem', field)
    headGranted()
  end
  return reply
end
-- A hash without a TTL is never unlocked by expiry: unless it holds counts only, it is another application's.
-- Read once: nothing below writes the lock key, and the reply's wait needs the same TTL (-2: an empty hash is no key).
local lockTtl = -2
if size > 0 then lockTtl = on(1, 'pttl') end
if lockTtl == -1 then
  ${LUA_IS_HOLD_COUNT}
  for _, value in ipairs(on(1, 'hvals')) do
    if not isHoldCount(value) then ${luaNotALock('KEYS[1]')} end
  end
end
if not enqueue then return {0, -1, 0} end
local current = on(4, 'zscore', field)
if not head then
  -- An empty queue counts its grants from 0 again.
  on(5, 'hdel', 'grants')
  grants = false
end
local details = (grants or '0') .. ' ' .. lease .. ' ' .. (fencing and '1' or '0') .. (direct and 'd' or '') .. ' ' .. waitId .. ' ' .. hold
local position = nil
local deadline = 0
if current then
  local queue = on(3, 'lrange', '0', '-1')
  for i = 1, #queue do
    if queue[i] == field then
      position = i - 1
      break
    end
  end
end
if position then
  local previous = headDetails
  if position > 0 then previous = on(5, 'hget', field) end
  deadline = math.max(tonumber(current) - share * lagOf(previous, grants), clock() + (position + 1) * share)
  on(5, 'hset', field, details)
  if on(5, 'pttl') < deadline - now + share then on(5, 'pexpire', int(deadline - now + share)) end
else
  on(5, 'hset', field, details)
  position = on(3, 'rpush', field) - 1
  deadline = clock() + (position + 1) * share
  on(5, 'pexpire', int(deadline - now + share))
end
on(4, 'zadd', int(deadline), field)
local refresh = math.max(1, math.floor(share / 3))
if position > 0 and headDeadline - now >= refresh then return {0, refresh, nowUs} end
local wait = lockTtl
if position > 0 then wait = math.max(wait, headDeadline - now) end
-- A TTL of 0 is a lock in its last millisecond: try again in 1 ms, not a refresh period later.
if wait == 0 then wait = 1 elseif wait < 0 or wait > refresh then wait = refresh end
return {0, wait, nowUs}
`,
  memory: (db, keys, argv) => {
    const run = new FairScriptRun(db, keys, argv, false);
    const { field, hold, lease, share } = run;
    const grant = (size: number): number[] => {
      const token = run.fencing ? db.incrby(run.token, 1) : -1;
      if (hold !== '') db.hset(run.holds, hold, '1');
      db.hincrby(run.lock, field, 1);
      let ttl = lease;
      if (size > 0) {
        const left = db.pttl(run.lock);
        if (left >= lease) ttl = left;
      }
      if (ttl === lease) db.pexpire(run.lock, lease);
      if (hold !== '') db.pexpire(run.holds, ttl);
      return [1, token, 0];
    };
    const size = db.hlen(run.lock);
    run.headOfQueue();
    const { head } = run;
    const mine = size > 0 && db.hexists(run.lock, field) === 1;
    if (mine && (hold === '' || db.hexists(run.holds, hold) === 1)) {
      if (db.pttl(run.lock) < lease) db.pexpire(run.lock, lease);
      if (hold !== '' && db.pttl(run.holds) < lease) db.pexpire(run.holds, lease);
      return [1, run.fencing ? Number(db.get(run.token) ?? '-1') : -1, 0];
    }
    if (mine && run.nonReentrant) throw new ScriptError(`${REENTRY_REPLY} ${run.lock}`);
    if (mine) return grant(size);
    if (size === 0 && (head === undefined || head === field)) {
      const reply = grant(0);
      if (head !== undefined) {
        db.hdel(run.waiters, field);
        db.lpop(run.queue);
        db.zrem(run.timeouts, field);
        run.headGranted();
      }
      return reply;
    }
    const lockTtl = size > 0 ? db.pttl(run.lock) : -2;
    if (lockTtl === -1 && db.hkeys(run.lock).some((key) => !isHoldCount(db.hget(run.lock, key)))) throw notALock(run.lock);
    if (!run.enqueue) return [0, -1, 0];
    const current = db.zscore(run.timeouts, field);
    if (head === undefined) {
      db.hdel(run.waiters, 'grants');
      run.grants = null;
    }
    const details = `${run.grants ?? '0'} ${argv[0]} ${run.fencing ? 1 : 0}${run.direct ? 'd' : ''} ${run.waitId} ${hold}`;
    const found = current === null ? -1 : db.lrange(run.queue).indexOf(field);
    let position: number;
    let deadline: number;
    if (current !== null && found !== -1) {
      position = found;
      const previous = position > 0 ? db.hget(run.waiters, field) : run.headDetails;
      deadline = Math.max(current - share * run.lagOf(previous, run.grants), run.clock() + (position + 1) * share);
      db.hset(run.waiters, field, details);
      if (db.pttl(run.waiters) < deadline - run.clock() + share) db.pexpire(run.waiters, deadline - run.clock() + share);
    } else {
      db.hset(run.waiters, field, details);
      position = db.rpush(run.queue, field) - 1;
      deadline = run.clock() + (position + 1) * share;
      db.pexpire(run.waiters, deadline - run.clock() + share);
    }
    db.zadd(run.timeouts, deadline, field);
    const now = run.clock();
    const refresh = Math.max(1, Math.floor(share / 3));
    if (position > 0 && run.headDeadline - now >= refresh) return [0, refresh, run.nowUs];
    let wait = lockTtl;
    if (position > 0) wait = Math.max(wait, run.headDeadline - now);
    if (wait === 0) wait = 1;
    else if (wait < 0 || wait > refresh) wait = refresh;
    return [0, wait, run.nowUs];
  },
  parse: parseFairAttempt,
});

export function parseFairAttempt(reply: Reply): FairAttempt {
  const values = list(reply);
  const value = int(values[1] ?? -1);
  if (int(values[0] ?? 0) === 1) return { granted: true, grant: value };
  // A single try (-1) joins no queue: its reply's time would time no hand-off.
  return value < 0 ? { granted: false, retryInMs: value } : { granted: false, retryInMs: value, serverUs: int(values[2] ?? 0) };
}
