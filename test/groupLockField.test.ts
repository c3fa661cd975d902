import { describe, expect, it } from 'vitest';
import { valueField } from '../src/primitives/groupLock/valueField.js';

/**
 * Fields computed on the JVM with Redisson's own `org.redisson.misc.HighwayHash` (redisson/src/main/java/org/redisson/
 * misc/HighwayHash.java at 6686397) and the steps of `Hash.hash128toBase64` (the two words big-endian, base64 without
 * its `==`), for the UTF-8 bytes of strings (what `StringCodec` encodes) and for `length` bytes `(k * 37 + 11) & 0xff`.
 * The lengths cover every branch of `updateRemainder` (size mod 4, the 16-byte bit) and whole 32-byte packets.
 */
const STRINGS: readonly (readonly [string, string])[] = [
  ['a', 'qwvAS12pR0CgRitaypEjUw'],
  ['Jack_001', '7pNoDdizVy2xY792MaFv+w'],
  ['Mary_002', 'kIX2DFOX4IWct7G7K6tV9A'],
  ['sku:42', 'ED7p5F83164lGyqURuaxaA'],
  ['ünïcødé ✓', 'xsmIua23iQLr7WhYu23Ocg'],
  ['x'.repeat(100), 'xLlhhuMBl4Bc0rU9DXx5Mw'],
];

const BYTES: readonly (readonly [number, string])[] = [
  [0, 't6rZwibGo2uy1OSmNVe8pg'],
  [1, 'w8wj8jo2uRH6cwJXw/e/2A'],
  [3, '7HJnLHOAvdRzcNhsXo9Vpg'],
  [4, '2V0EfU+YkeZM1wNoUMYWVg'],
  [15, 'B4/UQd3LmT9CqTkd4jfN4g'],
  [16, '1unvafekgKn6SSSkkyv1/w'],
  [17, '1lL8lvz9SeC6Eq+TG8SN1Q'],
  [31, '1PMioTy96oKWBUBnOmQfmA'],
  [32, 'B4jzYgiAV/pNuoOYX/An6Q'],
  [33, 'J+Zax0akPrVXEk8SO6muJA'],
  [47, 'gu+ZurfL1tJ2RDhEh11zag'],
  [63, 'Mxl2i+vethvH2XrwA8ZFOg'],
  [64, 'd3N38nF1p8Kf7aDTDnrCgg'],
  [70, 'eMFT+yublnVckN9IavJ6Uw'],
];

describe('groupLock$ value fields: Redisson’s RedissonFasterMultiLock.hashValue', () => {
  it('hashes a string’s UTF-8 bytes as Redisson does for a StringCodec client', () => {
    for (const [value, field] of STRINGS) expect([value, valueField(value)]).toEqual([value, field]);
    expect(valueField('')).toBe(BYTES[0]?.[1]);
  });

  it('hashes bytes of every remainder length and whole packets as Redisson does', () => {
    for (const [length, field] of BYTES) {
      const bytes = Uint8Array.from({ length }, (_, k) => (k * 37 + 11) & 0xff);
      expect([length, valueField(bytes)]).toEqual([length, field]);
    }
  });
});
