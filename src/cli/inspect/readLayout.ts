import type { Cluster, Redis } from 'ioredis';
import { familyKeys } from './familyKeys.js';
import { readScript, runReadScript } from './ReadScript.js';

/** Redis types as TYPE names them; `none` for a missing key. */
export type KeyType = 'none' | 'string' | 'hash' | 'list' | 'set' | 'zset' | 'stream' | (string & {});

/** A LIST or ZSET companion key: its type, full size and its first entries (at most `READ_LIMIT`). */
export interface Collection<T> {
  readonly type: KeyType;
  readonly size: number;
  readonly entries: readonly T[];
}

/** Everything the keys of one name held at one instant, read by one read-only script. */
export interface RawLayout {
  readonly name: string;
  /** The server's clock (TIME): queue deadlines, permit leases and waiting times are on it. */
  readonly serverTimeMs: number;
  readonly mainType: KeyType;
  /** PTTL of the main key: -2 missing, -1 no expiry. */
  readonly mainTtlMs: number;
  /** HGETALL of a hash main key. */
  readonly hash: ReadonlyMap<string, string>;
  /** GET of a string main key. */
  readonly value: string | undefined;
  /** Fair lock queue (LIST). */
  readonly queue: Collection<string>;
  /** Fair lock waiter deadlines (ZSET). */
  readonly queueTimeouts: Collection<readonly [string, number]>;
  /** Leased permits (ZSET), ids as 32 hex digits. */
  readonly permitLeases: Collection<readonly [string, number]>;
  /** rxlock's waiters of a lock (ZSET `waiterMember` → start time). */
  readonly waiters: Collection<readonly [string, number]>;
  readonly tokenType: KeyType;
  readonly token: string | undefined;
  /** rxlock's hand-off reservation `<field>|<until ms>`. */
  readonly handoff: string | undefined;
  /** rxlock's holds HASH (capped at `READ_LIMIT` fields). */
  readonly holdsType: KeyType;
  readonly holds: ReadonlyMap<string, string>;
  readonly holdsCount: number;
  /** Read-write lock: each reader field's longest timeout-key PTTL (-1: one never expires, -2: none left). */
  readonly readerTtls: ReadonlyMap<string, number>;
}

/** Entries read from a queue, a lease set or a holds hash; the sizes are always exact. */
export const READ_LIMIT = 100;

export const LAYOUT_SCRIPT = readScript(`
local function kind(key) return redis.call('type', key)['ok'] end
local limit = tonumber(ARGV[1])
local function hex(member)
  if #member ~= 16 then return member end
  return (member:gsub('.', function(c) return string.format('%02x', string.byte(c)) end))
end
local function collection(key, wanted, ids)
  local t = kind(key)
  if t ~= wanted then return {t, 0, {}} end
  if t == 'list' then return {t, redis.call('llen', key), redis.call('lrange', key, 0, limit - 1)} end
  local flat = redis.call('zrange', key, 0, limit - 1, 'withscores')
  if ids then for i = 1, #flat, 2 do flat[i] = hex(flat[i]) end end
  return {t, redis.call('zcard', key), flat}
end
local function text(key)
  local t = kind(key)
  if t == 'string' then return {t, redis.call('get', key)} end
  return {t, ''}
end
local mainType = kind(KEYS[1])
local main = {}
if mainType == 'hash' then main = redis.call('hgetall', KEYS[1]) elseif mainType == 'string' then main = {redis.call('get', KEYS[1])} end
local holdsType = kind(KEYS[7])
local holds, holdsCount = {}, 0
if holdsType == 'hash' then
  holds = redis.call('hscan', KEYS[7], 0, 'COUNT', limit)[2]
  holdsCount = redis.call('hlen', KEYS[7])
end
local readers = {}
if mainType == 'hash' and redis.call('hexists', KEYS[1], 'mode') == 1 then
  for i = 1, #main, 2 do
    local field, count = main[i], tonumber(main[i + 1])
    if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
      local best = -2
      for k = 1, math.min(count, limit) do
        local ttl = redis.call('pttl', ARGV[2] .. ':' .. field .. ':rwlock_timeout:' .. k)
        if ttl == -1 then best = -1 elseif best ~= -1 and ttl > best then best = ttl end
      end
      readers[#readers + 1] = field
      readers[#readers + 1] = best
    end
  end
end
return {redis.call('time'), mainType, redis.call('pttl', KEYS[1]), main, collection(KEYS[2], 'list', false),
  collection(KEYS[3], 'zset', false), collection(KEYS[4], 'zset', true), collection(KEYS[8], 'zset', false),
  text(KEYS[5]), text(KEYS[6]), {holdsType, holds, holdsCount}, readers}
`);

/** Reads every key of `name` at one instant: one read-only script, all keys in one cluster slot. */
export async function readLayout(redis: Redis | Cluster, name: string): Promise<RawLayout> {
  const keys = familyKeys(name);
  const keyList = [keys.main, keys.queue, keys.queueTimeouts, keys.permitLeases, keys.token, keys.handoff, keys.holds, keys.waiters];
  return parse(name, await runReadScript(redis, LAYOUT_SCRIPT, keyList, [READ_LIMIT, keys.readerTimeoutBase]));
}

type Raw = readonly unknown[];

function parse(name: string, reply: unknown): RawLayout {
  const [time, mainType, mainTtl, main, queue, queueTimeouts, permitLeases, waiters, token, handoff, holds, readers] = reply as Raw;
  const [seconds, micros] = time as Raw;
  const mainFields = main as Raw;
  const [tokenType, tokenValue] = token as readonly [string, string];
  const [handoffType, handoffValue] = handoff as readonly [string, string];
  const [holdsType, holdsFields, holdsCount] = holds as readonly [string, Raw, unknown];
  return {
    name,
    serverTimeMs: Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000),
    mainType: String(mainType),
    mainTtlMs: Number(mainTtl),
    hash: mainType === 'hash' ? pairs(mainFields, String) : new Map(),
    value: mainType === 'string' ? String(mainFields[0]) : undefined,
    queue: collection(queue, (entries) => entries.map(String)),
    queueTimeouts: collection(queueTimeouts, scored),
    permitLeases: collection(permitLeases, scored),
    waiters: collection(waiters, scored),
    tokenType,
    token: tokenType === 'string' ? tokenValue : undefined,
    handoff: handoffType === 'string' ? handoffValue : undefined,
    holdsType,
    holds: pairs(holdsFields, String),
    holdsCount: Number(holdsCount),
    readerTtls: pairs(readers as Raw, Number),
  };
}

function pairs<V>(flat: Raw, value: (raw: unknown) => V): Map<string, V> {
  const map = new Map<string, V>();
  for (let i = 0; i + 1 < flat.length; i += 2) map.set(String(flat[i]), value(flat[i + 1]));
  return map;
}

function scored(flat: Raw): [string, number][] {
  return [...pairs(flat, Number)];
}

function collection<T>(raw: unknown, entries: (flat: Raw) => T[]): Collection<T> {
  const [type, size, flat] = raw as Raw;
  return { type: String(type), size: Number(size), entries: entries(flat as Raw) };
}
