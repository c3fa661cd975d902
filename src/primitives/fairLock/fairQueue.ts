import type { MemoryDb, RedisType } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { LUA_CHECKED_CALL } from '../../store/wrongType.js';
import { drawHandOffFirst, HANDED_OVER, LUA_DRAW_HAND_OFF_FIRST } from '../handedOver.js';
import { grantMessage, LUA_HAND_OFF_MESSAGES, nextMessage } from '../../engine/handOff/handOffMessage.js';

/**
 * The part the fair lock scripts share, written twice: `FAIR_LUA_FUNCTIONS` opens each Lua script and
 * `FairScriptRun` is its memory twin, function by function.
 *
 * KEYS: lock, holds, queue, timeouts, waiters, token (see `FairLockKeys`).
 * ARGV (the same for every script, see `fairArgv`): leaseMs, field, holdId ('' for an owner that never
 * re-enters), waitId, flags, waiterTimeoutMs, channel prefix, confirmMs (how long a lock handed over
 * directly lasts until its new holder confirms it). The flags are letters: `q` take or keep a
 * place in the queue, `f` fencing, `d` direct hand-offs (for an attempt: this waiter takes one; for a release
 * or leave: it may hand the lock over directly), `n` non-reentrant (an attempt by an owner that holds the lock is
 * refused with `RXLOCK_REENTRY`), `s` sharded pub/sub (SPUBLISH).
 *
 * Deadlines follow Redisson's accounting, so that both can share a queue: a waiter's deadline is its last
 * sign of life plus one `waiterTimeoutMs` share for itself and one for every waiter ahead of it; every
 * grant and every waiter that leaves brings the deadlines behind one share closer; a dead waiter is
 * dropped when it reaches the head with its deadline passed. Times are the server's (TIME), never a client's.
 *
 * A grant does not rewrite every deadline (Redisson's ZINCRBY each: the costliest part of a hand-off with
 * a long queue). The waiters hash counts the grants (`grants`) and records, for every waiter in the queue, the
 * count when its deadline was written (its epoch); its deadline is then the ZSET score minus one share per
 * grant since. Only the head's deadline is ever compared with the time, so that is the only one worked
 * out. A waiter the hash does not know (a Redisson waiter) is registered at the first grant after it
 * joined, by its epoch alone, so that the hash keeps one entry per waiter; its deadline is its score as it
 * is, which is how Redisson reads it, as rxlock cannot tell whether a Redisson waiter took the lock with
 * Redisson's script and queued again since (its entry would then charge it grants from its previous wait).
 * Redisson clients read the scores as they are: a deadline there is never earlier than in this
 * accounting, so they never drop a waiter that rxlock still counts as alive.
 *
 * Cost: the scripts run on every acquisition, so they touch only what the path needs. A key of the wrong
 * type is found by the first command that touches it (`on`), which ends the script with `RXLOCK_WRONGTYPE
 * <key> <type>`, so no TYPE is sent on the way; each script touches its keys in an order where whatever it
 * wrote before that point is a step complete in itself (dead waiters dropped, a fencing token drawn, a lock
 * released). Arguments go to Redis as strings: Redis 7.0 formats a Lua number with `%.17g`, which costs
 * more than most of the commands. TIME is read only when a deadline is needed. Each script answers its
 * common case (a free lock, nobody in the queue) before it sets these functions up, and defines `checkedCall`
 * (`LUA_CHECKED_CALL`) ahead of them.
 */
export const FAIR_LUA_FUNCTIONS = `
local lease, field, hold, waitId, flags = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local leaseMs, share, channelPrefix, confirm = tonumber(lease), tonumber(ARGV[6]), ARGV[7], tonumber(ARGV[8] or '0')
local enqueue, fencing = string.find(flags, 'q', 1, true) ~= nil, string.find(flags, 'f', 1, true) ~= nil
local direct, publish = string.find(flags, 'd', 1, true) ~= nil, 'publish'
if string.find(flags, 's', 1, true) then publish = 'spublish' end

-- checkedCall on KEYS[i].
local function on(i, command, ...)
  return checkedCall(KEYS[i], command, ...)
end

local function int(n)
  return string.format('%d', n)
end

local now, nowUs = nil, '0'
local function clock()
  if not now then
    local time = redis.call('time')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    nowUs = time[1] .. string.rep('0', 6 - #time[2]) .. time[2]
  end
  return now
end

-- Shares a waiter's score is ahead of its deadline: the grants since its epoch (its details' first word),
-- for an rxlock waiter's details; none for a Redisson waiter's (its epoch alone).
local function lagOf(details, grants)
  local epoch = details and tonumber(string.match(details, '^(%d+) '))
  if not epoch or not grants then return 0 end
  return math.max(0, tonumber(grants) - epoch)
end

-- The head of the queue (false if nobody waits), its deadline and details, and the grant count, once the heads
-- whose deadline passed are dropped, as Redisson drops them. first: the head, if the caller read it already.
-- A queue that empties so keeps no waiters hash: its grant count starts from 0 again anyway.
local head, headDeadline, headDetails, grants = false, nil, nil, nil
local function headOfQueue(first)
  local dropped = false
  while true do
    head = first or on(3, 'lindex', '0')
    first = nil
    if not head then
      if dropped then on(5, 'del') end
      return
    end
    local known = on(5, 'hmget', head, 'grants')
    headDetails, grants = known[1], known[2]
    local score = tonumber(on(4, 'zscore', head))
    if score then
      headDeadline = score - share * lagOf(headDetails, grants)
      if headDeadline > clock() then return end
    end
    on(5, 'hdel', head)
    on(3, 'lpop')
    on(4, 'zrem', head)
    dropped = true
  end
end

-- Registers the waiters in the queue that the waiters hash does not know (Redisson's) as of the grant before
-- count, and drops the details of waiters no longer in the queue (Redisson took them out).
local function reconcile(count)
  local queue = on(3, 'lrange', '0', '-1')
  local inQueue = {}
  for _, waiter in ipairs(queue) do inQueue[waiter] = true end
  for _, known in ipairs(on(5, 'hkeys')) do
    if known ~= 'grants' and not inQueue[known] then on(5, 'hdel', known) end
  end
  for from = 1, #queue, 1000 do
    local upTo = math.min(from + 999, #queue)
    local details = on(5, 'hmget', unpack(queue, from, upTo))
    for i = from, upTo do
      if not details[i - from + 1] then on(5, 'hset', queue[i], int(count - 1)) end
    end
  end
end

-- The head left the queue with the lock: every deadline behind comes one share closer, by counting the grant.
local function headGranted()
  local left = on(4, 'zcard')
  if left == 0 then
    on(5, 'del')
    return
  end
  local count = on(5, 'hincrby', 'grants', '1')
  if on(5, 'hlen') - 1 ~= left then reconcile(count) end
end

-- A waiter left from position (1-based): everyone behind it comes one share closer.
local function moveUpFrom(position)
  for _, waiter in ipairs(on(3, 'lrange', int(position - 1), '-1')) do
    on(4, 'zadd', 'XX', 'INCR', '-' .. ARGV[6], waiter)
  end
end

-- The lock is free: the head of the queue gets it. An rxlock head whose client listens gets it directly
-- (the message carries the grant; true); any other head hears Redisson's 0 and takes it with its next attempt.
local function handOff(first)
  -- Defined here, not with the others: only a hand-off needs them, and the acquire script need not build them.
  ${LUA_DRAW_HAND_OFF_FIRST}
  ${LUA_HAND_OFF_MESSAGES}
  headOfQueue(first)
  if not head then return false end
  local channel = channelPrefix .. ':' .. head
  local headLease, headFencing, headWait, headHold
  if direct and headDetails then
    local accepts
    headLease, headFencing, accepts, headWait, headHold = string.match(headDetails, '^%d+ (%d+) ([01])(d?) (%S+) (%S*)$')
    -- A head that takes no direct hand-off (a fixed lease longer than the confirmation window) hears 0 instead.
    if accepts ~= 'd' then headLease = nil end
  end
  if headLease then
    local numsub = 'numsub'
    if publish == 'spublish' then numsub = 'shardnumsub' end
    if redis.call('pubsub', numsub, channel)[2] == 0 then headLease = nil end
  end
  -- Refused token or hold id: the head hears Redisson's 0 instead, as one whose client does not listen.
  local token = nil
  if headLease then token = drawHandOffFirst(KEYS[6], KEYS[2], headFencing == '1', headHold ~= '' and headHold or nil) end
  if not token then
    redis.call(publish, channel, '0')
    return false
  end
  on(5, 'hdel', head)
  on(3, 'lpop')
  on(4, 'zrem', head)
  headGranted()
  on(1, 'hset', head, '1')
  -- Until its holder confirms it, the lock lasts a short window: a head that cannot use it (frozen, cut off,
  -- dead) keeps it from the others that long at most.
  local handedTtl = int(math.min(tonumber(headLease), confirm))
  on(1, 'pexpire', handedTtl)
  if headHold ~= '' then on(2, 'pexpire', handedTtl) end
  redis.call(publish, channel, grantMessage(int(token), nowUs, headWait .. ' ' .. headHold))
  -- The next head, if another client's, tries again when that window lapses rather than at its next re-check.
  local nextHead = on(3, 'lindex', '0')
  if nextHead and string.match(nextHead, '^[^:]*') ~= string.match(head, '^[^:]*') then
    local nextWait, nextHold = string.match(on(5, 'hget', nextHead) or '', '^%d+ %d+ [01]d (%S+) (%S*)$')
    if nextWait then redis.call(publish, channelPrefix .. ':' .. nextHead, nextMessage(handedTtl, nextWait .. ' ' .. nextHold)) end
  end
  return true
end

-- The lock was just released: hands it to the head of the queue (first: the head, if read already). 2, or
-- ${HANDED_OVER} when it was given straight to the head.
local function handOnAfterUnlock(first)
  -- A queue key of another type (which acquires report) means nobody to hand it to.
  -- (Redis 7's pcall hands an error table over as its message; older ones as the table.)
  local ok, handed = pcall(handOff, first)
  if not ok then
    local message = type(handed) == 'table' and handed.err or tostring(handed)
    if string.sub(message, 1, ${WRONGTYPE_REPLY.length}) == '${WRONGTYPE_REPLY}' then return 2 end
    error({err = message})
  end
  if handed then return ${HANDED_OVER} end
  return 2
end

-- Ends this caller's hold (count: its field's count), checking its hold id first. 0: not held; 1: one
-- hold less; 2: unlocked and handed on; ${HANDED_OVER}: unlocked and given straight to the head of the queue.
local function releaseHold(count)
  if hold ~= '' and on(2, 'hdel', hold) == 0 then return 0 end
  if tonumber(count) > 1 then
    local ttl = on(1, 'pttl')
    if ttl > 0 then on(1, 'pexpire', int(ttl)) end
    on(1, 'hincrby', field, '-1')
    return 1
  end
  redis.call('del', KEYS[1], KEYS[2])
  return handOnAfterUnlock()
end
`;

/**
 * What scripts outside the fair lock (the CLI's) build on: the functions, after checking every key's type
 * up front and dropping the dead heads of the queue, as the fair lock's first scripts did.
 */
export const FAIR_LUA_PRELUDE = `
local expected = {'hash', 'hash', 'list', 'zset', 'hash', 'string'}
for i = 1, #expected do
  local kind = redis.call('type', KEYS[i])['ok']
  if kind ~= 'none' and kind ~= expected[i] then
    return redis.error_reply('${WRONGTYPE_REPLY} ' .. KEYS[i] .. ' ' .. kind)
  end
end
${LUA_CHECKED_CALL}
${FAIR_LUA_FUNCTIONS}
headOfQueue()
`;

const EXPECTED_TYPES: readonly RedisType[] = ['hash', 'hash', 'list', 'zset', 'hash', 'string'];

/** What the scripts' ARGV carry, by name. */
export interface FairArgs {
  readonly leaseMs: number;
  readonly field: string;
  readonly holdId: string;
  readonly waitId: string;
  readonly fencing: boolean;
  readonly enqueue: boolean;
  readonly waiterTimeoutMs: number;
  readonly publishCommand: string;
  readonly channelPrefix: string;
  readonly direct: boolean;
  /** How long a lock handed over directly lasts until its new holder confirms it (see `confirmWindowMs`). */
  readonly confirmMs: number;
  /** Redisson's non-reentrant fair lock: the owner asking again is refused. @default false */
  readonly nonReentrant?: boolean | undefined;
}

/** The scripts' ARGV: few and short, as each one costs the client and Redis on every call. */
export function fairArgv(args: FairArgs): (string | number)[] {
  const flags = `${args.enqueue ? 'q' : ''}${args.fencing ? 'f' : ''}${args.direct ? 'd' : ''}${args.nonReentrant === true ? 'n' : ''}${args.publishCommand === 'spublish' ? 's' : ''}`;
  return [args.leaseMs, args.field, args.holdId, args.waitId, flags, args.waiterTimeoutMs, args.channelPrefix, args.confirmMs];
}

/**
 * The memory twin of `FAIR_LUA_FUNCTIONS`: construct it where the Lua script starts. Reading a key through
 * `key(i)` (or its getter) is the twin of `on(i, ...)`: a key of another type fails the script there. With
 * `checkUpFront` (the default, for `FAIR_LUA_PRELUDE`) it checks every key first and drops the dead heads
 * of the queue.
 */
export class FairScriptRun {
  readonly db: MemoryDb;
  readonly keys: readonly string[];
  readonly lease: number;
  readonly field: string;
  readonly hold: string;
  readonly waitId: string;
  readonly fencing: boolean;
  readonly enqueue: boolean;
  readonly share: number;
  readonly publish: string;
  readonly channelPrefix: string;
  readonly direct: boolean;
  readonly nonReentrant: boolean;
  readonly confirm: number;
  /** What `headOfQueue()` found: the head (undefined if nobody waits), its deadline and details, the grant count. */
  head: string | undefined;
  headDeadline = 0;
  headDetails: string | null = null;
  grants: string | null = null;
  #now: number | undefined;
  #nowUs = '0';

  constructor(db: MemoryDb, keys: readonly string[], argv: readonly string[], checkUpFront = true) {
    this.db = db;
    this.keys = keys;
    const [lease = '0', field = '', hold = '', waitId = '', flags = '', share = '0', channelPrefix = '', confirm = '0'] = argv;
    this.lease = Number(lease);
    this.field = field;
    this.hold = hold;
    this.waitId = waitId;
    this.fencing = flags.includes('f');
    this.enqueue = flags.includes('q');
    this.share = Number(share);
    this.publish = flags.includes('s') ? 'spublish' : 'publish';
    this.channelPrefix = channelPrefix;
    this.direct = flags.includes('d');
    this.nonReentrant = flags.includes('n');
    this.confirm = Number(confirm);
    if (checkUpFront) {
      EXPECTED_TYPES.forEach((_, i) => this.key(i + 1));
      this.headOfQueue();
    }
  }

  /** KEYS[i] (1-based, as in Lua), after checking that it holds what the fair lock stores there. */
  key(i: number): string {
    const key = this.keys[i - 1] ?? '';
    const kind = this.db.type(key);
    if (kind !== 'none' && kind !== EXPECTED_TYPES[i - 1]) throw new ScriptError(`${WRONGTYPE_REPLY} ${key} ${kind}`);
    return key;
  }

  get lock(): string {
    return this.key(1);
  }
  get holds(): string {
    return this.key(2);
  }
  get queue(): string {
    return this.key(3);
  }
  get timeouts(): string {
    return this.key(4);
  }
  get waiters(): string {
    return this.key(5);
  }
  get token(): string {
    return this.key(6);
  }

  clock(): number {
    if (this.#now === undefined) {
      const micros = Math.floor(this.db.time() * 1000);
      this.#now = Math.floor(micros / 1000);
      this.#nowUs = String(micros);
    }
    return this.#now;
  }

  /** The server time in µs, once `clock()` ran ('0' before). */
  get nowUs(): string {
    return this.#nowUs;
  }

  lagOf(details: string | null, grants: string | null): number {
    const epoch = details === null ? undefined : /^(\d+) /.exec(details)?.[1];
    if (epoch === undefined || grants === null) return 0;
    return Math.max(0, Number(grants) - Number(epoch));
  }

  headOfQueue(): void {
    const { db } = this;
    let dropped = false;
    for (;;) {
      this.head = db.lindex(this.queue, 0) ?? undefined;
      if (this.head === undefined) {
        if (dropped) db.del(this.waiters);
        return;
      }
      this.headDetails = db.hget(this.waiters, this.head);
      this.grants = db.hget(this.waiters, 'grants');
      const score = db.zscore(this.timeouts, this.head);
      if (score !== null) {
        this.headDeadline = score - this.share * this.lagOf(this.headDetails, this.grants);
        if (this.headDeadline > this.clock()) return;
      }
      db.hdel(this.waiters, this.head);
      db.lpop(this.queue);
      db.zrem(this.timeouts, this.head);
      dropped = true;
    }
  }

  reconcile(count: number): void {
    const { db } = this;
    const queue = db.lrange(this.queue);
    const inQueue = new Set(queue);
    for (const known of db.hkeys(this.waiters)) if (known !== 'grants' && !inQueue.has(known)) db.hdel(this.waiters, known);
    for (const waiter of queue) if (db.hget(this.waiters, waiter) === null) db.hset(this.waiters, waiter, String(count - 1));
  }

  headGranted(): void {
    const { db } = this;
    const left = db.zcard(this.timeouts);
    if (left === 0) {
      db.del(this.waiters);
      return;
    }
    const count = db.hincrby(this.waiters, 'grants', 1);
    if (db.hlen(this.waiters) - 1 !== left) this.reconcile(count);
  }

  moveUpFrom(position: number): void {
    const { db } = this;
    for (const waiter of db.lrange(this.queue).slice(position - 1)) {
      const score = db.zscore(this.timeouts, waiter);
      if (score !== null) db.zadd(this.timeouts, score - this.share, waiter);
    }
  }

  handOff(): boolean {
    const { db } = this;
    this.headOfQueue();
    const head = this.head;
    if (head === undefined) return false;
    const channel = `${this.channelPrefix}:${head}`;
    const parsed = this.direct && this.headDetails !== null ? /^\d+ (\d+) ([01])d (\S+) (\S*)$/.exec(this.headDetails) : null;
    if (parsed === null || db.numsub(channel) === 0) {
      db.publish(channel, '0');
      return false;
    }
    const [, headLease = '0', headFencing, headWait = '', headHold = ''] = parsed;
    // The raw keys, as the Lua's pcall sees them: a refusal there wakes the head rather than ending the script.
    const token = drawHandOffFirst(db, { token: this.keys[5] ?? '', holds: this.keys[1] ?? '' }, headFencing === '1', headHold === '' ? undefined : headHold);
    if (token === undefined) {
      db.publish(channel, '0');
      return false;
    }
    db.hdel(this.waiters, head);
    db.lpop(this.queue);
    db.zrem(this.timeouts, head);
    this.headGranted();
    db.hset(this.lock, head, '1');
    const handedTtl = Math.min(Number(headLease), this.confirm);
    db.pexpire(this.lock, handedTtl);
    if (headHold !== '') db.pexpire(this.holds, handedTtl);
    db.publish(channel, grantMessage(token, this.nowUs, `${headWait} ${headHold}`));
    const nextHead = db.lindex(this.queue, 0);
    if (nextHead !== null && clientOf(nextHead) !== clientOf(head)) {
      const next = /^\d+ \d+ [01]d (\S+) (\S*)$/.exec(db.hget(this.waiters, nextHead) ?? '');
      if (next !== null) db.publish(`${this.channelPrefix}:${nextHead}`, nextMessage(handedTtl, `${next[1] ?? ''} ${next[2] ?? ''}`));
    }
    return true;
  }

  releaseHold(count: string): number {
    const { db } = this;
    if (this.hold !== '' && db.hdel(this.holds, this.hold) === 0) return 0;
    if (Number(count) > 1) {
      const ttl = db.pttl(this.lock);
      if (ttl > 0) db.pexpire(this.lock, ttl);
      db.hincrby(this.lock, this.field, -1);
      return 1;
    }
    db.del(this.keys[0] ?? '', this.keys[1] ?? '');
    try {
      return this.handOff() ? HANDED_OVER : 2;
    } catch (error) {
      if (error instanceof ScriptError && error.message.startsWith(WRONGTYPE_REPLY)) return 2;
      throw error;
    }
  }
}

/** The client id of a field (`<clientId>:<owner>`). */
function clientOf(field: string): string {
  const colon = field.indexOf(':');
  return colon === -1 ? field : field.slice(0, colon);
}
