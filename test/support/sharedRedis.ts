import { afterEach, expect } from 'vitest';
import { createLockClient, type LockClient, type LockClientOptions } from '../../src/index.js';
import { eventually, isOpMemory } from './leaks.js';
import type { RedisServer } from './redisServer.js';
import { redisServerForSuite } from './suiteRedis.js';

/** A redis-server of the enclosing `describe`'s own, where rxlock meets a Redisson peer's scripts. */
export interface SharedRedis {
  /** The server; started before the first test, stopped after the last. */
  readonly server: RedisServer;
  /** A lock client on the server, closed after the test. */
  client(options?: Omit<LockClientOptions, 'redis' | 'store'>): LockClient;
}

/**
 * Registers the hooks: one server for the `describe`, the test's clients closed after each test, and then
 * no key left (a hand-off reservation outlives an unlock by at most `handoffMs`, so this waits up to 1 s;
 * op memory, which expires by itself, is then dropped).
 */
export function sharedRedis(): SharedRedis {
  const server = redisServerForSuite();
  const clients: LockClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    const admin = server.client();
    const leftovers = async (): Promise<string[]> => {
      const keys = await admin.keys('*');
      const ttls = await Promise.all(keys.map((key) => admin.pttl(key)));
      return keys.filter((key, i) => !isOpMemory(key, ttls[i] ?? -1));
    };
    expect(await eventually(async () => (await leftovers()).length === 0, 1_000)).toBe(true);
    await admin.flushall();
  });
  return {
    server,
    client(options = {}) {
      const client = createLockClient({ ...options, redis: server.client() });
      clients.push(client);
      return client;
    },
  };
}
