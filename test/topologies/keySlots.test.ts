import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { fairLockKeys, waiterChannel } from '../../src/primitives/fairLock/fairLockKeys.js';
import { latchKeys } from '../../src/primitives/latch/latchKeys.js';
import { leasedSemaphoreKeys } from '../../src/primitives/leasedSemaphore/leasedSemaphoreKeys.js';
import { lockKeys } from '../../src/primitives/lock/lockKeys.js';
import { readTimeoutPrefix, readWriteLockKeys, writeFieldOf } from '../../src/primitives/readWriteLock/readWriteLockKeys.js';
import { semaphoreKeys } from '../../src/primitives/semaphore/semaphoreKeys.js';

/** Every string a key builder returns (keys, channels, key prefixes), however many it grows. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

const FIELD = '6f1c2a3e-client:#1';

/** Each primitive's keys and channels for one full name, including the per-waiter and per-hold ones. */
const PRIMITIVES: Record<string, (fullName: string) => string[]> = {
  lock: (name) => strings(lockKeys(name)),
  fairLock: (name) => {
    const keys = fairLockKeys(name);
    return [...strings(keys), waiterChannel(keys, FIELD)];
  },
  readWriteLock: (name) => {
    const keys = readWriteLockKeys(name);
    return [...strings(keys), `${readTimeoutPrefix(keys, FIELD)}:1`, `${readTimeoutPrefix(keys, writeFieldOf(FIELD))}:2`];
  },
  semaphore: (name) => strings(semaphoreKeys(name)),
  leasedSemaphore: (name) => strings(leasedSemaphoreKeys(name)),
  // Redisson's own channel of a tagged latch lies outside the slot on purpose: only classic PUBLISH, which no slot binds, goes there.
  latch: (name) => {
    const { redissonChannel, ...keys } = latchKeys(name);
    expect(redissonChannel).toBe(name.includes('{') ? `redisson_countdownlatch__channel__{${name}}` : undefined);
    return strings(keys);
  },
};

// Plain names are wrapped in braces (Redisson's rule); names with a hash tag keep it, wherever it stands.
const NAMES = ['job', 'orders:42', 'ünïcödé-名前', '{tenant-7}', '{tenant-7}:job', 'job:{tenant-7}', 'a{b}c', 'x{y}z{w}', 'app:{user:1}:lock'];

describe('every key and channel of one primitive lives in one cluster slot', () => {
  for (const [primitive, keysOf] of Object.entries(PRIMITIVES)) {
    it(`${primitive}: plain names and names with a hash tag`, () => {
      for (const name of NAMES) {
        const slots = new Set(keysOf(name).map((key) => calculateSlot(key)));
        expect({ name, slots: [...slots] }).toEqual({ name, slots: [calculateSlot(name)] });
      }
    });
  }
});
