import type { MemoryDb } from '../../store/memory/MemoryDb.js';
import { ScriptError, WRONGTYPE_REPLY } from '../../store/Script.js';
import { OP_MEMORY_MS } from './opMemory.js';

// The op memory (`rxlock_ops:{name}`) is a ZSET holding two members per op, both scored with the op's expiry
// (server time in ms): `<opId>`, found with ZSCORE, and `<opId>=<reply>`, found among the members of that
// score (op ids are UUIDs: no prefix of one is another). Every op first forgets the expired ones, so the key
// holds only the last `OP_MEMORY_MS` of ops however busy the object is, and its own TTL removes it once idle.

/**
 * Lua, after the other keys' type checks and before any write: refuses an ops key of another type; forgets
 * expired ops; ends the script with the first reply when the op `op` (a Lua expression) ran already. Then
 * defines `remember(reply)`, which records the op's reply and returns it: every outcome of the op must go
 * through it, so that a copy of the op answers the same.
 */
export function luaRecallOp(ops: string, op: string): string {
  return `local opsKind = redis.call('type', ${ops})['ok']
if opsKind ~= 'none' and opsKind ~= 'zset' then
  return redis.error_reply('${WRONGTYPE_REPLY} ' .. ${ops} .. ' ' .. opsKind)
end
local opClock = redis.call('time')
local opNow = tonumber(opClock[1]) * 1000 + math.floor(tonumber(opClock[2]) / 1000)
redis.call('zremrangebyscore', ${ops}, '-inf', opNow)
local opExpiry = redis.call('zscore', ${ops}, ${op})
if opExpiry then
  local replyPrefix = ${op} .. '='
  for _, member in ipairs(redis.call('zrangebyscore', ${ops}, opExpiry, opExpiry)) do
    if string.sub(member, 1, #replyPrefix) == replyPrefix then
      return tonumber(string.sub(member, #replyPrefix + 1))
    end
  end
end
local function remember(reply)
  local expiry = opNow + ${OP_MEMORY_MS}
  redis.call('zadd', ${ops}, expiry, ${op}, expiry, ${op} .. '=' .. reply)
  redis.call('pexpire', ${ops}, ${OP_MEMORY_MS})
  return reply
end`;
}

/** What `recallOp` found: the first reply of an op that ran already, or how to record this first run's. */
export interface RecalledOp {
  readonly reply: number | undefined;
  remember(reply: number): number;
}

/** The memory twin of `luaRecallOp`. */
export function recallOp(db: MemoryDb, ops: string, op: string): RecalledOp {
  const kind = db.type(ops);
  if (kind !== 'none' && kind !== 'zset') throw new ScriptError(`${WRONGTYPE_REPLY} ${ops} ${kind}`);
  const now = db.time();
  db.zremrangebyscore(ops, -Infinity, now);
  const remember = (reply: number): number => {
    const expiry = now + OP_MEMORY_MS;
    db.zadd(ops, expiry, op);
    db.zadd(ops, expiry, `${op}=${reply}`);
    db.pexpire(ops, OP_MEMORY_MS);
    return reply;
  };
  const expiry = db.zscore(ops, op);
  if (expiry === null) return { reply: undefined, remember };
  const replyPrefix = `${op}=`;
  const member = db.zrangebyscore(ops, expiry, expiry).find((candidate) => candidate.startsWith(replyPrefix));
  return { reply: member === undefined ? undefined : Number(member.slice(replyPrefix.length)), remember };
}
