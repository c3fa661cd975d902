import { randomBytes } from 'node:crypto';
import { describeValue } from '../../util/describeValue.js';

/** New permit ids as Redisson makes them: 16 random bytes, written as 32 hex digits. */
export function newPermitIds(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(16).toString('hex'));
}

/**
 * Lua: `unhex(id)`. Redisson stores a permit id in the timeout ZSET as its 16 raw bytes, not as hex text;
 * the scripts take hex (ioredis arguments are strings) and store the same bytes.
 */
export const LUA_UNHEX = `local function unhex(id)
  return (id:gsub('..', function(byte) return string.char(tonumber(byte, 16)) end))
end`;

/** The memory twin of `unhex`: the raw bytes as a latin1 string, one character per byte. */
export function unhex(id: string): string {
  return Buffer.from(id, 'hex').toString('latin1');
}

/** Lua: `now`, the server's clock in ms. Expiry times are the server's, so client clocks never matter. */
export const LUA_NOW = `local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/** Redisson's score for a permit without a lease. Such permits never expire, so nobody should wait for them to. */
export const NON_EXPIRABLE = 922337203685477;

const PERMIT_ID = /^[0-9a-fA-F]{32}$/;

/** Checks one permit id: 32 hex digits, as `PermitLease.permitIds` and Redisson's `acquire()` hand them out. */
export function assertPermitId(id: unknown, where: string): asserts id is string {
  if (typeof id !== 'string') throw new TypeError(`rxlock: ${where}: a permit id must be a string, got ${describeValue(id)}`);
  if (!PERMIT_ID.test(id)) throw new RangeError(`rxlock: ${where}: a permit id must be 32 hex digits (16 bytes), got ${describeValue(id)}`);
}

/** Checks a list of permit ids: 1 to `max` distinct ids (a repeated id would be counted once by Redis but twice by the caller). */
export function assertPermitIds(ids: unknown, where: string, max: number): asserts ids is readonly string[] {
  if (!Array.isArray(ids)) throw new TypeError(`rxlock: ${where}: permit ids must be an array of strings, got ${describeValue(ids)}`);
  if (ids.length === 0 || ids.length > max) {
    throw new RangeError(`rxlock: ${where}: give 1 to ${String(max)} permit ids, got ${String(ids.length)}`);
  }
  const seen = new Set<string>();
  for (const id of ids as unknown[]) {
    assertPermitId(id, where);
    const bytes = id.toLowerCase();
    if (seen.has(bytes)) throw new RangeError(`rxlock: ${where}: permit id ${id} is given twice`);
    seen.add(bytes);
  }
}
