import type { Redis } from 'ioredis';
import type { RedisLike } from '../../src/index.js';

/**
 * `redis` behind a Proxy that counts the calls `counts` accepts (a method name and its arguments), so a test
 * can show what a client sent, or that it sent nothing. Every call still reaches the client.
 */
export function countingCalls(redis: Redis, counts: (method: PropertyKey, args: readonly unknown[]) => boolean): { redis: RedisLike; calls: () => number } {
  let calls = 0;
  const proxy = new Proxy(redis, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (counts(property, args)) calls++;
        return method.apply(target, args);
      };
    },
  });
  return { redis: proxy, calls: () => calls };
}
