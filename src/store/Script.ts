import { createHash } from 'node:crypto';
import type { MemoryDb } from './memory/MemoryDb.js';

/** A reply as Redis gives it to ioredis: integers, bulk strings, nil and arrays of those. */
export type Reply = number | string | null | readonly Reply[];

/**
 * One atomic operation, written twice: in Lua for Redis and in TypeScript for the in-memory store.
 * The two bodies mirror each other line by line, and the contract suite runs every primitive on both.
 */
export interface Script<R> {
  /** A name for errors and statistics, e.g. `lock.acquire`. */
  readonly name: string;
  /** The Lua body. No shebang: release and renew must still run when Redis is out of memory. */
  readonly lua: string;
  /** SHA1 of `lua`, for EVALSHA. */
  readonly sha1: string;
  /** The same operation against the memory store's keyspace. Throws `ScriptError` where the Lua returns an error reply. */
  readonly memory: (db: MemoryDb, keys: readonly string[], argv: readonly string[]) => Reply;
  /** Turns the raw reply into the typed result the engine uses. */
  readonly parse: (reply: Reply) => R;
  /**
   * True for a reply that says the operation handed a lock straight to a waiter. The Redis store delivers
   * such a reply after the input already read (`setImmediate`): Redis writes the releaser's reply before
   * the waiter's hand-off message, and a waiter in the same process then takes its grant before the
   * releaser's code goes on. The memory store, which orders its own deliveries, ignores it.
   */
  readonly handsOver?: (reply: Reply) => boolean;
}

export function defineScript<R>(definition: Omit<Script<R>, 'sha1'>): Script<R> {
  const lua = definition.lua.trim();
  return { ...definition, lua, sha1: createHash('sha1').update(lua).digest('hex') };
}

/** The error reply a script raises on purpose; the message starts with an `RXLOCK_…` code. */
export class ScriptError extends Error {
  override get name(): string {
    return 'ScriptError';
  }
}

/** Script errors rxlock raises on purpose. The Lua side writes `redis.error_reply('<code> <detail>')`. */
export const WRONGTYPE_REPLY = 'RXLOCK_WRONGTYPE';
export const UPGRADE_REPLY = 'RXLOCK_UPGRADE';
export const REENTRY_REPLY = 'RXLOCK_REENTRY';

/** Reads an integer reply. */
export function int(reply: Reply): number {
  if (typeof reply === 'number') return reply;
  if (typeof reply === 'string' && /^-?\d+$/.test(reply)) return Number(reply);
  throw new TypeError(`rxlock: expected an integer reply, got ${JSON.stringify(reply)}`);
}

/** Reads an array reply. */
export function list(reply: Reply): readonly Reply[] {
  if (Array.isArray(reply)) return reply as readonly Reply[];
  throw new TypeError(`rxlock: expected an array reply, got ${JSON.stringify(reply)}`);
}
