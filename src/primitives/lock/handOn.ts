import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { LUA_PARSE_MEMBER, parseWaiterMember } from './waiterMember.js';

/** The prefix of a direct hand-off message: `rxlock:grant <token> <server time in µs> <member>`. */
export const LOCK_GRANT_PREFIX = 'rxlock:grant ';

/**
 * Lua functions the lock's release and leave scripts share. KEYS: lock, channel, waiters, handoff, holds,
 * token (the release keys, see `LockKeys`).
 *
 * `handOn` gives a lock that just became free to the longest-waiting rxlock waiter:
 * - a waiter that accepts direct hand-offs, and whose client listens on its hand-off channel
 *   (`<channel>:<clientId>`, checked with PUBSUB NUMSUB), gets the lock at once: its field, lease, hold id
 *   and fencing token are written here, and the message on that channel carries the grant, so the waiter
 *   holds the lock without a command of its own and no other client hears of it;
 * - any other waiter (its client not subscribed yet, or gone) is reserved the lock for `handoff` ms and
 *   woken by its ticket on Redisson's channel, as before direct hand-offs: a client that died cannot be
 *   handed a lock it would keep for a whole lease;
 * - with nobody waiting, Redisson's `0` goes to Redisson's channel.
 *
 * `releaseOne` ends one hold of `field` (whose count was read already; `hold`: its hold id or `-`).
 */
export const LUA_HAND_ON = `
${LUA_PARSE_MEMBER}
local function handOn(handoff, publish)
  local message = '0'
  if handoff > 0 then
    local head = redis.call('zrange', KEYS[3], 0, 0, 'WITHSCORES')
    if head[1] then
      local field, lease, flags, hold = parseMember(head[1])
      if field and string.find(flags, 'd', 1, true) then
        local channel = KEYS[2] .. ':' .. string.match(field, '^[^:]+')
        local numsub = 'numsub'
        if publish == 'spublish' then numsub = 'shardnumsub' end
        if redis.call('pubsub', numsub, channel)[2] > 0 then
          local token = -1
          if string.find(flags, 'f', 1, true) then token = redis.call('incr', KEYS[6]) end
          if hold ~= '-' then
            redis.call('hset', KEYS[5], hold, 1)
            redis.call('pexpire', KEYS[5], lease)
          end
          redis.call('hset', KEYS[1], field, 1)
          redis.call('pexpire', KEYS[1], lease)
          redis.call('zrem', KEYS[3], head[1])
          redis.call('del', KEYS[4])
          -- The waiters behind wait for this whole lease now: their places must last that long.
          local keep = tonumber(lease) + 2 * handoff + 5000
          if redis.call('pttl', KEYS[3]) < keep then redis.call('pexpire', KEYS[3], keep) end
          local time = redis.call('time')
          redis.call(publish, channel, '${LOCK_GRANT_PREFIX}' .. token .. ' ' .. time[1] .. string.format('%06d', tonumber(time[2])) .. ' ' .. head[1])
          return
        end
      end
      local time = redis.call('time')
      local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
      redis.call('set', KEYS[4], head[1] .. '|' .. (now + handoff), 'PX', 2 * handoff)
      message = head[2]
    end
  end
  redis.call(publish, KEYS[2], message)
end

local function releaseOne(field, count, hold, handoff, publish)
  if tonumber(count) > 1 then
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then redis.call('pexpire', KEYS[1], ttl) end
    redis.call('hincrby', KEYS[1], field, -1)
    return 1
  end
  if hold ~= '-' then redis.call('del', KEYS[1], KEYS[5]) else redis.call('del', KEYS[1]) end
  handOn(handoff, publish)
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

/** The memory twin of `handOn` (the memory store has one kind of pub/sub). */
export function handOn(db: MemoryDb, keys: HandOnKeys, handoff: number): void {
  let message = '0';
  if (handoff > 0) {
    const head = db.zrangeWithScores(keys.waiters)[0];
    if (head !== undefined) {
      const [member, score] = head;
      const waiter = parseWaiterMember(member);
      const channel = waiter === undefined ? '' : `${keys.channel}:${waiter.field.slice(0, waiter.field.indexOf(':'))}`;
      if (waiter?.direct === true && db.numsub(channel) > 0) {
        const token = waiter.fencing ? db.incrby(keys.token, 1) : -1;
        if (waiter.holdId !== undefined) {
          db.hset(keys.holds, waiter.holdId, '1');
          db.pexpire(keys.holds, waiter.leaseMs);
        }
        db.hset(keys.lock, waiter.field, '1');
        db.pexpire(keys.lock, waiter.leaseMs);
        db.zrem(keys.waiters, member);
        db.del(keys.handoff);
        const keep = waiter.leaseMs + 2 * handoff + 5000;
        if (db.pttl(keys.waiters) < keep) db.pexpire(keys.waiters, keep);
        db.publish(channel, `${LOCK_GRANT_PREFIX}${token} ${db.timeMicros()} ${member}`);
        return;
      }
      db.set(keys.handoff, `${member}|${db.time() + handoff}`, { px: 2 * handoff });
      message = String(score);
    }
  }
  db.publish(keys.channel, message);
}

/** The memory twin of `releaseOne`. */
export function releaseOne(db: MemoryDb, keys: HandOnKeys, field: string, count: string, hold: string, handoff: number): 1 | 2 {
  if (Number(count) > 1) {
    db.hincrby(keys.lock, field, -1);
    return 1;
  }
  if (hold === '-') db.del(keys.lock);
  else db.del(keys.lock, keys.holds);
  handOn(db, keys, handoff);
  return 2;
}
