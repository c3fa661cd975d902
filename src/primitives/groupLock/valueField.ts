import { highwayHash128 } from './highwayHash.js';

/**
 * A value of a group lock: a string, locked under its UTF-8 bytes (what Redisson's `StringCodec` encodes), or
 * the bytes a Redisson client's codec encodes the value to, given as they are.
 */
export type GroupValue = string | Uint8Array;

const encoder = new TextEncoder();

/**
 * The hash field a value is locked under, as Redisson's `RedissonFasterMultiLock.hashValue`: the HighwayHash-128
 * (`Hash.hash128toBase64`) of the value's encoded bytes, in base64 without its `==`.
 */
export function valueField(value: GroupValue): string {
  const bytes = typeof value === 'string' ? encoder.encode(value) : value;
  return Buffer.from(highwayHash128(bytes)).toString('base64').slice(0, -2);
}
