import { randomBytes } from 'node:crypto';

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
