import { ScriptError } from '../Script.js';

type Value =
  | { type: 'string'; value: string }
  | { type: 'hash'; value: Map<string, string> }
  | { type: 'list'; value: string[] }
  | { type: 'zset'; value: Map<string, number> }
  | { type: 'set'; value: Set<string> };

interface Entry {
  data: Value;
  /** Absolute expiry on the store's clock, or undefined for no expiry. */
  expiresAt: number | undefined;
}

/** A key's type as Redis's TYPE reports it: `none` for a key that does not exist. */
export type RedisType = 'string' | 'hash' | 'list' | 'zset' | 'set' | 'none';

/**
 * The slice of Redis the scripts use, on the store's clock. Keys expire lazily and silently, as in
 * Redis: an expired key publishes nothing. Method names and return values follow the Redis commands.
 */
export class MemoryDb {
  readonly #entries = new Map<string, Entry>();
  #lastMicros = 0;
  readonly #now: () => number;
  readonly #publish: (channel: string, message: string) => number;
  readonly #subscribers: (channel: string) => number;

  /** A keyspace on the clock `now`, publishing through `publish`; `MemoryStore` creates one (`store.db`). */
  constructor(now: () => number, publish: (channel: string, message: string) => number, subscribers: (channel: string) => number = () => 0) {
    this.#now = now;
    this.#publish = publish;
    this.#subscribers = subscribers;
  }

  /** Every live key, for tests and leak checks. */
  keys(): string[] {
    return [...this.#entries.keys()].filter((key) => this.#live(key) !== undefined);
  }

  /** Drops every key: what a restart without persistence does. */
  flushAll(): void {
    this.#entries.clear();
  }

  /** The store's clock (`scheduler.now()`), in ms. */
  time(): number {
    return this.#now();
  }

  /** The clock in microseconds, strictly increasing (Redis' TIME is; a virtual clock may stand still). */
  timeMicros(): number {
    this.#lastMicros = Math.max(Math.floor(this.#now() * 1000), this.#lastMicros + 1);
    return this.#lastMicros;
  }

  /** The key's type, as TYPE: `none` when it does not exist. */
  type(key: string): RedisType {
    return this.#live(key)?.data.type ?? 'none';
  }

  /** 1 if the key exists, else 0, as EXISTS. */
  exists(key: string): number {
    return this.#live(key) === undefined ? 0 : 1;
  }

  /** Deletes the keys, as DEL; returns how many existed. */
  del(...keys: string[]): number {
    let removed = 0;
    for (const key of keys) if (this.#live(key) !== undefined && this.#entries.delete(key)) removed++;
    return removed;
  }

  /** The key's remaining TTL in ms, as PTTL: -2 when it does not exist, -1 when it has no expiry. */
  pttl(key: string): number {
    const entry = this.#live(key);
    if (entry === undefined) return -2;
    return entry.expiresAt === undefined ? -1 : Math.max(0, Math.ceil(entry.expiresAt - this.#now()));
  }

  /** As in Redis, a non-positive time deletes the key at once. */
  pexpire(key: string, ms: number): number {
    return this.pexpireat(key, this.#now() + ms);
  }

  /** Makes the key expire at `at` on the store's clock, as PEXPIREAT; returns 1 if the key exists, else 0. */
  pexpireat(key: string, at: number): number {
    const entry = this.#live(key);
    if (entry === undefined) return 0;
    if (at <= this.#now()) this.#entries.delete(key);
    else entry.expiresAt = at;
    return 1;
  }

  /** Publishes `message` on `channel`, as PUBLISH; returns how many connections received it. */
  publish(channel: string, message: string): number {
    return this.#publish(channel, message);
  }

  /** The number of connections subscribed to `channel`, as PUBSUB NUMSUB. */
  numsub(channel: string): number {
    return this.#subscribers(channel);
  }

  /** The string at `key`, or null, as GET. */
  get(key: string): string | null {
    return this.#typed(key, 'string')?.value ?? null;
  }

  /** Sets a string, as SET with its PX and NX options; returns null when NX found the key. */
  set(key: string, value: string, options: { px?: number; nx?: boolean } = {}): 'OK' | null {
    if (options.nx === true && this.exists(key) === 1) return null;
    this.#entries.set(key, { data: { type: 'string', value }, expiresAt: options.px === undefined ? undefined : this.#now() + options.px });
    return 'OK';
  }

  /** Adds `by` to the integer at `key` (0 when missing), as INCRBY; returns the new value. */
  incrby(key: string, by: number): number {
    const current = this.#typed(key, 'string');
    const next = incremented(current?.value, by);
    if (current === undefined) this.#entries.set(key, { data: { type: 'string', value: String(next) }, expiresAt: undefined });
    else current.value = String(next);
    return Number(next);
  }

  /** A hash field's value, or null, as HGET. */
  hget(key: string, field: string): string | null {
    return this.#typed(key, 'hash')?.value.get(field) ?? null;
  }

  /** 1 if the hash has the field, else 0, as HEXISTS. */
  hexists(key: string, field: string): number {
    return this.#typed(key, 'hash')?.value.has(field) === true ? 1 : 0;
  }

  /** How many fields the hash has, as HLEN. */
  hlen(key: string): number {
    return this.#typed(key, 'hash')?.value.size ?? 0;
  }

  /** The hash's fields, as HKEYS. */
  hkeys(key: string): string[] {
    return [...(this.#typed(key, 'hash')?.value.keys() ?? [])];
  }

  /** Sets one hash field, as HSET; returns 1 if the field is new, else 0. */
  hset(key: string, field: string, value: string): number {
    const hash = this.#create(key, 'hash', () => new Map<string, string>());
    const added = hash.value.has(field) ? 0 : 1;
    hash.value.set(field, value);
    return added;
  }

  /** Adds `by` to a hash field's integer (0 when missing), as HINCRBY; returns the new value. */
  hincrby(key: string, field: string, by: number): number {
    const hash = this.#create(key, 'hash', () => new Map<string, string>());
    const current = hash.value.get(field);
    const next = incremented(current, by);
    hash.value.set(field, String(next));
    return Number(next);
  }

  /** Deletes one hash field, as HDEL (an emptied hash is deleted); returns 1 if it existed, else 0. */
  hdel(key: string, field: string): number {
    const hash = this.#typed(key, 'hash');
    if (hash === undefined || !hash.value.delete(field)) return 0;
    if (hash.value.size === 0) this.#entries.delete(key);
    return 1;
  }

  /** Appends to a list, as RPUSH; returns the list's new length. */
  rpush(key: string, value: string): number {
    const list = this.#create(key, 'list', () => [] as string[]);
    return list.value.push(value);
  }

  /** Removes and returns a list's first element, or null, as LPOP (an emptied list is deleted). */
  lpop(key: string): string | null {
    const list = this.#typed(key, 'list');
    const value = list?.value.shift();
    if (list !== undefined && list.value.length === 0) this.#entries.delete(key);
    return value ?? null;
  }

  /** The list element at `index` (negative counts from the end), or null, as LINDEX. */
  lindex(key: string, index: number): string | null {
    const items = this.#typed(key, 'list')?.value ?? [];
    return items.at(index) ?? null;
  }

  /** The whole list, as LRANGE key 0 -1. */
  lrange(key: string): string[] {
    return [...(this.#typed(key, 'list')?.value ?? [])];
  }

  /** Removes every element equal to `value`, as LREM key 0 value (an emptied list is deleted); returns how many. */
  lrem(key: string, value: string): number {
    const list = this.#typed(key, 'list');
    if (list === undefined) return 0;
    const before = list.value.length;
    list.value = list.value.filter((item) => item !== value);
    if (list.value.length === 0) this.#entries.delete(key);
    return before - list.value.length;
  }

  /** A list's length, as LLEN. */
  llen(key: string): number {
    return this.#typed(key, 'list')?.value.length ?? 0;
  }

  /** Adds a member to a set, as SADD; returns 1 if it is new, else 0. */
  sadd(key: string, member: string): number {
    const set = this.#create(key, 'set', () => new Set<string>());
    const added = set.value.has(member) ? 0 : 1;
    set.value.add(member);
    return added;
  }

  /** Adds a member to a sorted set or updates its score, as ZADD; returns 1 if it is new, else 0. */
  zadd(key: string, score: number, member: string): number {
    const zset = this.#create(key, 'zset', () => new Map<string, number>());
    const added = zset.value.has(member) ? 0 : 1;
    zset.value.set(member, score);
    return added;
  }

  /** A sorted-set member's score, or null, as ZSCORE. */
  zscore(key: string, member: string): number | null {
    return this.#typed(key, 'zset')?.value.get(member) ?? null;
  }

  /** Removes a sorted-set member, as ZREM (an emptied set is deleted); returns 1 if it existed, else 0. */
  zrem(key: string, member: string): number {
    const zset = this.#typed(key, 'zset');
    if (zset === undefined || !zset.value.delete(member)) return 0;
    if (zset.value.size === 0) this.#entries.delete(key);
    return 1;
  }

  /** How many members a sorted set has, as ZCARD. */
  zcard(key: string): number {
    return this.#typed(key, 'zset')?.value.size ?? 0;
  }

  /** Members with min <= score <= max, ordered by score then member, as ZRANGEBYSCORE. */
  zrangebyscore(key: string, min: number, max: number): string[] {
    return this.#sorted(key)
      .filter(([, score]) => score >= min && score <= max)
      .map(([member]) => member);
  }

  /** Removes the members with min <= score <= max, as ZREMRANGEBYSCORE; an emptied set is deleted. */
  zremrangebyscore(key: string, min: number, max: number): number {
    const zset = this.#typed(key, 'zset');
    if (zset === undefined) return 0;
    let removed = 0;
    for (const [member, score] of zset.value) if (score >= min && score <= max && zset.value.delete(member)) removed++;
    if (zset.value.size === 0) this.#entries.delete(key);
    return removed;
  }

  /** Members with their scores, ordered, as ZRANGE key 0 -1 WITHSCORES. */
  zrangeWithScores(key: string): [string, number][] {
    return this.#sorted(key);
  }

  #sorted(key: string): [string, number][] {
    const entries = [...(this.#typed(key, 'zset')?.value.entries() ?? [])];
    return entries.sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0));
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #typed<T extends Value['type']>(key: string, type: T): Extract<Value, { type: T }> | undefined {
    const entry = this.#live(key);
    if (entry === undefined) return undefined;
    if (entry.data.type !== type) throw new ScriptError('WRONGTYPE Operation against a key holding the wrong kind of value');
    return entry.data as Extract<Value, { type: T }>;
  }

  #create<T extends Value['type']>(key: string, type: T, empty: () => Extract<Value, { type: T }>['value']): Extract<Value, { type: T }> {
    const existing = this.#typed(key, type);
    if (existing !== undefined) return existing;
    const data = { type, value: empty() } as unknown as Extract<Value, { type: T }>;
    this.#entries.set(key, { data, expiresAt: undefined });
    return data;
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * INCRBY's and HINCRBY's arithmetic as Redis does it: a signed 64-bit integer written without leading zeros
 * (so not `007` or `-0`), exact beyond 2^53, and an error rather than a wrap past its range. Replies are JS
 * numbers, as ioredis gives them.
 */
function incremented(current: string | undefined, by: number): bigint {
  const value = current === undefined ? 0n : toInt64(current);
  const next = value + BigInt(by);
  if (next < INT64_MIN || next > INT64_MAX) throw new ScriptError('ERR increment or decrement would overflow');
  return next;
}

function toInt64(value: string): bigint {
  const parsed = int64Of(value);
  if (parsed === undefined) throw new ScriptError('ERR value is not an integer or out of range');
  return parsed;
}

/** `value` as Redis reads an integer (INCRBY, DECRBY): a signed 64-bit integer without leading zeros; undefined for anything else. */
export function int64Of(value: string): bigint | undefined {
  if (!/^(0|-?[1-9]\d{0,18})$/.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed < INT64_MIN || parsed > INT64_MAX ? undefined : parsed;
}
