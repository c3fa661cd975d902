import type { AttemptReply } from '../../engine/acquisition.js';
import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { defineScript, int, list, REENTRY_REPLY, ScriptError, WRONGTYPE_REPLY, type Reply } from '../../store/Script.js';
import { checkedCall, LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { isHoldCount, luaNotALock, LUA_IS_HOLD_COUNT, notALock } from './lockKind.js';
import { LUA_CLOCK } from './serverTime.js';
import { LUA_MEMBER_OF, waiterMember } from './waiterMember.js';

/** Granted with a fencing token (-1 without fencing), or refused with how long until it is worth trying again. */
export type LockAttempt = AttemptReply<number>;

/**
 * How the caller asks:
 * - `try`: one attempt (`waitMs: 0`); it will not wait, so it does not join the waiters.
 * - `new`: a first attempt; if it fails the caller waits, so it joins the waiters (in arrival order).
 * - `wait`: the caller has been waiting already.
 */
export type AttemptMode = 'try' | 'new' | 'wait';

/** The common grant, without a fencing token: one object for all of them. */
const GRANTED: LockAttempt = Object.freeze({ granted: true, grant: -1 });

/**
 * KEYS: lock, waiters, handoff, then holds (only for a reentrant owner), then token (only with fencing).
 * ARGV: leaseMs, field (`<clientId>:<owner>`), mode (`try`/`new`/`wait`, then `+` and the flags: `f` for
 * fencing, `d` when the caller takes direct hand-offs, `n` for a non-reentrant lock, whose owner asking again
 * gets `RXLOCK_REENTRY` rather than a second hold), handoffMs, then holdId (only for a reentrant owner).
 * The optional keys and argument are left out when unused: they are most of the command's bytes.
 *
 * Redisson's RLock acquire (hash field → hold count, PEXPIRE, refusal with the PTTL), plus:
 * - a hold that is already granted answers granted again without counting twice (ioredis re-sends
 *   in-flight commands after a reconnect): an owner that never re-enters is known by its field, a
 *   reentrant owner's holds by their hold id. The same answer comes to a waiter that an unlock handed
 *   the lock to directly, if it asks before the hand-off message reached it;
 * - rxlock waiters are queued by arrival (as their `waiterMember`), and an unlock hands the lock to the
 *   longest-waiting one (see `LUA_HAND_ON`), so neither a releaser that re-acquires at once nor the waiter
 *   that happens to hear first can starve the others. When it cannot hand it over directly, the unlock
 *   reserves the lock for that waiter for `handoffMs`; a reservation left unused means its waiter is gone:
 *   it leaves the queue. Waiters queued behind others are woken by their ticket or their hand-off; the
 *   time they are told to wait is only the fallback that notices a reserved waiter that never came
 *   (within two hand-off windows).
 *   A refused waiter gets its ticket (its place in the queue, the server's clock in µs when it joined),
 *   which a reservation's message names, and the server's clock in µs at this attempt, from which it
 *   times a lease handed over later.
 * A grant draws the fencing token and writes the hold id before the lock hash, each through `checkedCall`: a
 * counter or hash of another type (or a counter that is not a number) ends the script before the caller holds
 * anything (a token drawn for nothing is harmless). Each of those first writes is one an out-of-memory server
 * refuses, so it refuses the grant before anything is written.
 *
 * A refusal by a hash without a TTL, which no unlock may ever free, checks that it holds hold counts only: any
 * other value makes it a hash that is not a lock (another application's), an error rather than a wait for ever.
 *
 * A grant replies with an integer, the fencing token (-1 without fencing); a refusal with an array
 * `{0, retry ms[, ticket, server µs]}`. An integer is the cheapest reply for Redis to build and for the
 * client to read, and grants are the common case.
 *
 * The common case, a free lock that nobody waits for, is answered first, before the locals and helper
 * functions the other cases need (only `checkedCall` comes first): it should not pay for setting them up.
 */
export const lockAcquireScript = defineScript<LockAttempt>({
  name: 'lock.acquire',
  lua: `
${LUA_CHECKED_CALL}
-- One call recognises the common case, a free lock that nobody waits for: granted at once.
if redis.call('exists', KEYS[1], KEYS[2]) == 0 then
  local token = -1
  if string.find(ARGV[3], 'f', 4, true) then token = checkedCall(KEYS[#KEYS], 'incr') end
  if ARGV[5] then
    checkedCall(KEYS[4], 'hset', ARGV[5], 1)
    redis.call('pexpire', KEYS[4], ARGV[1])
  end
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return token
end
-- Held, or waited for.
local size = redis.pcall('hlen', KEYS[1])
if type(size) == 'table' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[1] .. ' ' .. redis.call('type', KEYS[1])['ok'])
end
${LUA_MEMBER_OF}
local lease, field, handoff, hold = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[4]), ARGV[5]
local mode, flags = string.match(ARGV[3], '^(%a+)%+?(%a*)$')
local fencing = string.find(flags, 'f', 1, true) ~= nil
-- n (non-reentrant) is how the caller asks, not how it waits: its queue entry is the same without it.
local nonReentrant = string.find(flags, 'n', 1, true) ~= nil
local member = memberOf(field, ARGV[1], (string.gsub(flags, 'n', '')), hold)
local holds = hold and KEYS[4]
local tokens = fencing and KEYS[#KEYS]
local mine = size > 0 and redis.call('hexists', KEYS[1], field) == 1
if mine and (not hold or checkedCall(holds, 'hexists', hold) == 1) then
  -- Granted by an earlier copy of this attempt, or handed over: the caller counts its lease from this attempt, so
  -- the key must last that long, and so must its hold id (a hand-off gave both only the hand-off window).
  local token = -1
  if fencing then token = tonumber(checkedCall(tokens, 'get') or '-1') end
  checkedCall(KEYS[2], 'zrem', member)
  if redis.call('pttl', KEYS[1]) < lease then redis.call('pexpire', KEYS[1], lease) end
  if hold and redis.call('pttl', holds) < lease then redis.call('pexpire', holds, lease) end
  return token
end
-- Redisson's non-reentrant lock: its owner asking again is an error, not a second hold.
if mine and nonReentrant then return redis.error_reply('${REENTRY_REPLY} ' .. KEYS[1]) end
-- The queue matters to a free lock and to an owner re-entering (who leaves it); anyone else is refused.
local queued = 0
if handoff > 0 and (size == 0 or mine) then queued = checkedCall(KEYS[2], 'zcard') end
local now, micros = nil, nil
local function clock()
  if now == nil then
    ${LUA_CLOCK}
  end
  return now
end
-- lockTtl: the lock's PTTL (0 when it is free), which the waiters' key must outlast.
local function refuse(ttl, lockTtl)
  if mode ~= 'try' and handoff > 0 then
    clock()
    local ticket = micros
    if checkedCall(KEYS[2], 'zadd', 'NX', micros, member) == 0 then ticket = redis.call('zscore', KEYS[2], member) end
    redis.call('pexpire', KEYS[2], math.max(lockTtl, 0) + 2 * handoff + 5000)
    return {0, ttl, ticket, micros}
  end
  return {0, ttl}
end
local ghost = nil
if size == 0 then
  if queued > 0 then
    local reservation = checkedCall(KEYS[3], 'get')
    local reservedForMe = false
    if reservation then
      local bar = string.find(reservation, '|', 1, true)
      local reservedFor, untilMs = string.sub(reservation, 1, bar - 1), tonumber(string.sub(reservation, bar + 1))
      reservedForMe = reservedFor == member
      if not reservedForMe then
        if clock() < untilMs then return refuse(untilMs - clock() + handoff, 0) end
        ghost = reservedFor
      end
    end
    if not reservedForMe and mode ~= 'wait' then
      local ahead = queued
      if redis.call('zscore', KEYS[2], member) then ahead = ahead - 1 end
      if ghost and redis.call('zscore', KEYS[2], ghost) then ahead = ahead - 1 end
      if ahead > 0 then return refuse(2 * handoff, 0) end
    end
  end
elseif not mine then
  local ttl = redis.call('pttl', KEYS[1])
  -- A hash without a TTL is never unlocked by expiry: unless it holds counts only, it is another application's.
  if ttl == -1 then
    ${LUA_IS_HOLD_COUNT}
    for _, value in ipairs(redis.call('hvals', KEYS[1])) do
      if not isHoldCount(value) then ${luaNotALock('KEYS[1]')} end
    end
  end
  return refuse(ttl, ttl)
end
local token = -1
if fencing then token = checkedCall(tokens, 'incr') end
if hold then checkedCall(holds, 'hset', hold, 1) end
redis.call('hincrby', KEYS[1], field, 1)
local ttl = lease
if mine then
  local current = redis.call('pttl', KEYS[1])
  if current > lease then ttl = current else redis.call('pexpire', KEYS[1], lease) end
else
  redis.call('pexpire', KEYS[1], lease)
end
if hold then redis.call('pexpire', holds, ttl) end
if queued > 0 then
  if size == 0 then redis.call('del', KEYS[3]) end
  if ghost then redis.call('zrem', KEYS[2], ghost) end
  redis.call('zrem', KEYS[2], member)
end
return token
`,
  memory: (db: MemoryDb, keys, [leaseArg = '', field = '', modeArg = '', handoffArg = '0', hold]) => {
    const [lock = '', waiters = '', handoffKey = '', holds = ''] = keys;
    const [mode = '', flags = ''] = modeArg.split('+');
    const fencing = flags.includes('f');
    const tokenKey = keys.at(-1) ?? '';
    const drawToken = (): number => (fencing ? checkedCall(db, tokenKey, () => db.incrby(tokenKey, 1)) : -1);
    if (db.exists(lock) + db.exists(waiters) === 0) {
      const token = drawToken();
      if (hold !== undefined) {
        checkedCall(db, holds, () => db.hset(holds, hold, '1'));
        db.pexpire(holds, Number(leaseArg));
      }
      db.hincrby(lock, field, 1);
      db.pexpire(lock, Number(leaseArg));
      return token;
    }
    const kind = db.type(lock);
    if (kind !== 'none' && kind !== 'hash') throw new ScriptError(`${WRONGTYPE_REPLY} ${lock} ${kind}`);
    const size = db.hlen(lock);
    const lease = Number(leaseArg);
    const handoff = Number(handoffArg);
    const member = waiterMember({ field, leaseMs: lease, fencing, direct: flags.includes('d'), holdId: hold });
    const mine = size > 0 && db.hexists(lock, field) === 1;
    if (mine && (hold === undefined || checkedCall(db, holds, () => db.hexists(holds, hold)) === 1)) {
      const token = fencing ? Number(checkedCall(db, tokenKey, () => db.get(tokenKey)) ?? '-1') : -1;
      checkedCall(db, waiters, () => db.zrem(waiters, member));
      if (db.pttl(lock) < lease) db.pexpire(lock, lease);
      if (hold !== undefined && db.pttl(holds) < lease) db.pexpire(holds, lease);
      return token;
    }
    if (mine && flags.includes('n')) throw new ScriptError(`${REENTRY_REPLY} ${lock}`);
    const queued = handoff > 0 && (size === 0 || mine) ? checkedCall(db, waiters, () => db.zcard(waiters)) : 0;
    const refuse = (ttl: number): Reply => {
      if (mode !== 'try' && handoff > 0) {
        const micros = db.timeMicros();
        if (checkedCall(db, waiters, () => db.zscore(waiters, member)) === null) db.zadd(waiters, micros, member);
        db.pexpire(waiters, Math.max(db.pttl(lock), 0) + 2 * handoff + 5000);
        return [0, ttl, String(db.zscore(waiters, member)), String(micros)];
      }
      return [0, ttl];
    };
    let ghost: string | undefined;
    if (size === 0) {
      if (queued > 0) {
        const reservation = checkedCall(db, handoffKey, () => db.get(handoffKey));
        let reservedForMe = false;
        if (reservation !== null) {
          const bar = reservation.indexOf('|');
          const reservedFor = reservation.slice(0, bar);
          const untilMs = Number(reservation.slice(bar + 1));
          reservedForMe = reservedFor === member;
          if (!reservedForMe) {
            if (db.time() < untilMs) return refuse(untilMs - db.time() + handoff);
            ghost = reservedFor;
          }
        }
        if (!reservedForMe && mode !== 'wait') {
          let ahead = queued;
          if (db.zscore(waiters, member) !== null) ahead--;
          if (ghost !== undefined && db.zscore(waiters, ghost) !== null) ahead--;
          if (ahead > 0) return refuse(2 * handoff);
        }
      }
    } else if (!mine) {
      const ttl = db.pttl(lock);
      if (ttl === -1 && db.hkeys(lock).some((key) => !isHoldCount(db.hget(lock, key)))) throw notALock(lock);
      return refuse(ttl);
    }
    const token = drawToken();
    if (hold !== undefined) checkedCall(db, holds, () => db.hset(holds, hold, '1'));
    db.hincrby(lock, field, 1);
    let ttl = lease;
    if (mine) {
      const current = db.pttl(lock);
      if (current > lease) ttl = current;
      else db.pexpire(lock, lease);
    } else {
      db.pexpire(lock, lease);
    }
    if (hold !== undefined) db.pexpire(holds, ttl);
    if (queued > 0) {
      if (size === 0) db.del(handoffKey);
      if (ghost !== undefined) db.zrem(waiters, ghost);
      db.zrem(waiters, member);
    }
    return token;
  },
  parse: (reply) => {
    if (typeof reply === 'number') return reply === -1 ? GRANTED : { granted: true, grant: reply };
    const [, value, ticket, serverUs] = list(reply);
    if (typeof ticket !== 'string') return { granted: false, retryInMs: int(value ?? -1) };
    if (serverUs === undefined) return { granted: false, retryInMs: int(value ?? -1), waiterId: ticket };
    return { granted: false, retryInMs: int(value ?? -1), waiterId: ticket, serverUs: int(serverUs) };
  },
});
