import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { drawHandOffFirst, HANDED_OVER, LUA_DRAW_HAND_OFF_FIRST } from '../handedOver.js';
import { LUA_PARSE_MEMBER, parseWaiterMember } from './waiterMember.js';
import { CONFIRM_HANDOFFS, grantMessage, LUA_HAND_OFF_MESSAGES, nextMessage } from '../../engine/handOff/handOffMessage.js';

/**
 * How long a queued waiter that takes direct hand-offs may go without its client listening before an unlock
 * counts it as gone, in hand-off windows: long enough for its client to subscribe (or re-subscribe after a
 * reconnect, which also sends a new attempt), far shorter than a lease.
 */
export const STALE_WAITER_HANDOFFS = 10;

/** How many gone waiters one unlock drops from the head of the queue before it reserves the lock for the next. */
const MAX_DROPPED = 16;

/**
 * Lua functions the lock's release and leave scripts share. KEYS: lock, channel, waiters, handoff, holds,
 * token (the release keys, see `LockKeys`).
 *
 * `nextWaiter(handoff)` pops the longest-waiting rxlock waiter (`{member, score}`, or nothing): popping it at
 * once is one call fewer than reading the head and removing it later, on every hand-off.
 *
 * `handOn(head, handoff, publish)` gives a lock that just became free to that waiter:
 * - a waiter that accepts direct hand-offs, and whose client listens on its hand-off channel
 *   (`<channel>:<clientId>`, checked with PUBSUB NUMSUB), gets the lock at once: its field, lease, hold id
 *   and fencing token are written here, and the message on that channel carries the grant, so the waiter
 *   holds the lock without a command of its own and no other client hears of it. The lock lasts only
 *   `CONFIRM_HANDOFFS` hand-off windows until the waiter confirms it (renews it), so that a waiter that
 *   cannot use it (frozen, cut off, dead without the server noticing) keeps it from the others that long at
 *   most; the next waiter, if another client's, is told so and tries again when that window lapses. Its token and hold id are
 *   written first: if Redis refuses either (a key of another type, a counter that is not a number), it is
 *   treated as below, as a waiter still subscribing, so that its own attempt reports the error and the
 *   releaser's release still succeeds;
 * - such a waiter whose client has not listened for `STALE_WAITER_HANDOFFS` hand-off windows since it
 *   joined is gone (its process died, or its client lost its subscriber): it stays out of the queue, and
 *   the next waiter is considered;
 * - any other waiter (its client still subscribing, or one that takes no direct hand-offs) goes back to its
 *   place (the key lasts at least the reservation's life if popping emptied it), is reserved the lock for
 *   `handoff` ms and is woken by its ticket on Redisson's channel: a client that died cannot be handed a
 *   lock it would keep for a whole lease;
 * - with nobody waiting, Redisson's `0` goes to Redisson's channel.
 * It answers true when it gave the lock directly, and `releaseOne` then answers `HANDED_OVER`.
 *
 * `releaseOne` ends one hold of `field` (whose count was read already; `hold`: its hold id or `-`).
 */
export const LUA_HAND_ON = `
${LUA_PARSE_MEMBER}
${LUA_DRAW_HAND_OFF_FIRST}
${LUA_HAND_OFF_MESSAGES}
local function nextWaiter(handoff)
  -- pcall: a waiters key of another type (which acquires report) counts as nobody waiting, so that a release
  -- never stops half done; its error reply has no member.
  if handoff > 0 then return redis.pcall('zpopmin', KEYS[3]) end
  return {}
end

local function handOn(head, handoff, publish)
  local message = '0'
  local time, nowUs = nil, 0
  for dropped = 0, ${MAX_DROPPED} do
    -- The next one is popped only if it is considered: one popped past the last would leave the queue.
    if dropped > 0 then head = redis.call('zpopmin', KEYS[3]) end
    local member = head[1]
    if not member then break end
    if not time then
      time = redis.call('time')
      nowUs = tonumber(time[1]) * 1000000 + tonumber(time[2])
    end
    local field, lease, flags, hold = parseMember(member)
    local listening = true
    if field and string.find(flags, 'd', 1, true) then
      local channel = KEYS[2] .. ':' .. string.match(field, '^[^:]+')
      local numsub = 'numsub'
      if publish == 'spublish' then numsub = 'shardnumsub' end
      local listens = redis.call('pubsub', numsub, channel)[2] > 0
      -- Refused token or hold id: the waiter is reserved the lock instead (below), as one still subscribing.
      local token = listens and drawHandOffFirst(KEYS[6], KEYS[5], string.find(flags, 'f', 1, true) ~= nil, hold ~= '-' and hold or nil)
      if token then
        local handed = math.min(tonumber(lease), ${CONFIRM_HANDOFFS} * handoff)
        if hold ~= '-' then redis.call('pexpire', KEYS[5], handed) end
        redis.call('hset', KEYS[1], field, 1)
        redis.call('pexpire', KEYS[1], handed)
        redis.call('del', KEYS[4])
        -- The waiters behind wait for this whole lease now: their places must last that long.
        local keep = tonumber(lease) + 2 * handoff + 5000
        if redis.call('pttl', KEYS[3]) < keep then redis.call('pexpire', KEYS[3], keep) end
        local micros = time[2]
        redis.call(publish, channel, grantMessage(token, time[1] .. string.rep('0', 6 - #micros) .. micros, member))
        -- The next waiter, if another client's, tries again when the window lapses rather than at its holder's TTL.
        local after = redis.call('zrange', KEYS[3], 0, 0)[1]
        if after then
          local afterField, _, afterFlags = parseMember(after)
          local afterClient = afterField and string.match(afterField, '^[^:]+')
          if afterClient and afterClient ~= string.match(field, '^[^:]+') and string.find(afterFlags, 'd', 1, true) then
            redis.call(publish, KEYS[2] .. ':' .. afterClient, nextMessage(handed, after))
          end
        end
        return true
      end
      if not listens then
        listening = nowUs - tonumber(head[2]) <= ${STALE_WAITER_HANDOFFS} * 1000 * handoff
      end
    end
    if listening then
      redis.call('zadd', KEYS[3], head[2], member)
      if redis.call('pttl', KEYS[3]) < 2 * handoff + 5000 then redis.call('pexpire', KEYS[3], 2 * handoff + 5000) end
      redis.call('set', KEYS[4], member .. '|' .. (math.floor(nowUs / 1000) + handoff), 'PX', 2 * handoff)
      message = head[2]
      break
    end
  end
  redis.call(publish, KEYS[2], message)
  return false
end

local function releaseOne(field, count, hold, handoff, publish)
  if tonumber(count) > 1 then
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
    redis.call('hincrby', KEYS[1], field, -1)
    return 1
  end
  if hold ~= '-' then redis.call('del', KEYS[1], KEYS[5]) else redis.call('del', KEYS[1]) end
  if handOn(nextWaiter(handoff), handoff, publish) then return ${HANDED_OVER} end
  return 2
end`;

/** The release keys by name, in `LUA_HAND_ON`'s order. */
export interface HandOnKeys {
  readonly lock: string;
  readonly channel: string;
  readonly waiters: string;
  readonly handoff: string;
  readonly holds: string;
  readonly token: string;
}

export function handOnKeys([lock = '', channel = '', waiters = '', handoff = '', holds = '', token = '']: readonly string[]): HandOnKeys {
  return { lock, channel, waiters, handoff, holds, token };
}

/** The memory twin of `nextWaiter` and `handOn` (the memory store has one kind of pub/sub; its head stays in place instead of going back). */
export function handOn(db: MemoryDb, keys: HandOnKeys, handoff: number): boolean {
  let message = '0';
  if (handoff > 0 && db.type(keys.waiters) === 'zset') {
    const nowUs = db.timeMicros();
    for (let dropped = 0; dropped <= MAX_DROPPED; dropped++) {
      const head = db.zrangeWithScores(keys.waiters)[0];
      if (head === undefined) break;
      const [member, score] = head;
      const waiter = parseWaiterMember(member);
      let listening = true;
      if (waiter?.direct === true) {
        const channel = `${keys.channel}:${waiter.field.slice(0, waiter.field.indexOf(':'))}`;
        const listens = db.numsub(channel) > 0;
        const token = listens ? drawHandOffFirst(db, keys, waiter.fencing, waiter.holdId) : undefined;
        if (token !== undefined) {
          const handed = Math.min(waiter.leaseMs, CONFIRM_HANDOFFS * handoff);
          if (waiter.holdId !== undefined) db.pexpire(keys.holds, handed);
          db.hset(keys.lock, waiter.field, '1');
          db.pexpire(keys.lock, handed);
          db.zrem(keys.waiters, member);
          db.del(keys.handoff);
          const keep = waiter.leaseMs + 2 * handoff + 5000;
          if (db.pttl(keys.waiters) < keep) db.pexpire(keys.waiters, keep);
          db.publish(channel, grantMessage(token, nowUs, member));
          const after = db.zrangeWithScores(keys.waiters)[0]?.[0];
          const next = after === undefined ? undefined : parseWaiterMember(after);
          if (after !== undefined && next?.direct === true && clientOf(next.field) !== clientOf(waiter.field)) {
            db.publish(`${keys.channel}:${clientOf(next.field)}`, nextMessage(handed, after));
          }
          return true;
        }
        if (!listens) listening = nowUs - score <= STALE_WAITER_HANDOFFS * 1000 * handoff;
      }
      if (listening) {
        const reservationLife = 2 * handoff + 5000;
        // Redis pops the head and puts it back: as the only member, into a key recreated without a TTL.
        if (db.zcard(keys.waiters) === 1 || db.pttl(keys.waiters) < reservationLife) db.pexpire(keys.waiters, reservationLife);
        db.set(keys.handoff, `${member}|${Math.floor(nowUs / 1000) + handoff}`, { px: 2 * handoff });
        message = String(score);
        break;
      }
      db.zrem(keys.waiters, member);
    }
  }
  db.publish(keys.channel, message);
  return false;
}

/** The memory twin of `releaseOne`. */
export function releaseOne(db: MemoryDb, keys: HandOnKeys, field: string, count: string, hold: string, handoff: number): 1 | 2 | 3 {
  if (Number(count) > 1) {
    db.hincrby(keys.lock, field, -1);
    return 1;
  }
  if (hold === '-') db.del(keys.lock);
  else db.del(keys.lock, keys.holds);
  return handOn(db, keys, handoff) ? HANDED_OVER : 2;
}

/** The client id of a field (`<clientId>:<owner>`). */
function clientOf(field: string): string {
  const colon = field.indexOf(':');
  return colon === -1 ? field : field.slice(0, colon);
}
