import { Redis } from 'ioredis';
import * as nodeRedis5 from 'redis';
import * as nodeRedis6 from 'redis6';
import type { RedisClientType } from 'redis';
import type { RedisLike } from '../../src/index.js';

/**
 * The Redis client library the fault and topology suites give their lock clients: `RXLOCK_CLIENT=node-redis`
 * for node-redis 5, `node-redis-6` for node-redis 6 (the `redis6` alias), ioredis otherwise. Child processes (the
 * fault suite's workers) inherit it.
 */
export const CLIENT_LIBRARY: 'ioredis' | 'node-redis' = (() => {
  const asked = process.env.RXLOCK_CLIENT ?? 'ioredis';
  if (asked === 'ioredis') return 'ioredis';
  if (asked === 'node-redis' || asked === 'node-redis-6') return 'node-redis';
  throw new Error(`RXLOCK_CLIENT: unknown client library ${JSON.stringify(asked)} (ioredis, node-redis, node-redis-6)`);
})();

/**
 * The node-redis package those suites create clients with: `redis` (5), or `redis6` with `RXLOCK_CLIENT=node-redis-6`.
 * Typed as node-redis 5's: the suites use only what both majors have.
 */
export const nodeRedis: typeof nodeRedis5 = process.env.RXLOCK_CLIENT === 'node-redis-6' ? (nodeRedis6 as unknown as typeof nodeRedis5) : nodeRedis5;

/** How a lock client's own connection behaves, in terms both libraries have. */
export interface LockConnectionOptions {
  /** Milliseconds between reconnect attempts (ioredis `retryStrategy`, node-redis `reconnectStrategy`); null: never reconnect. */
  readonly retryMs?: number | null;
  /** ioredis `maxRetriesPerRequest` (node-redis has no such limit: it queues until reconnected). */
  readonly maxRetriesPerRequest?: number | null;
}

/** Every connection `lockConnection` opened and nobody closed yet: `closeLockConnections()` closes them. */
const opened = new Set<ClosableRedis>();

/** Closes the connections `lockConnection` opened that are still open (a suite's afterAll, before its servers stop). */
export function closeLockConnections(): void {
  for (const redis of [...opened]) redis.close();
}

/** A connection that closes like either library's. */
export type ClosableRedis = RedisLike & { close(): void };

/**
 * A new connection of `CLIENT_LIBRARY` to 127.0.0.1:`port` for a lock client, connecting (commands wait for it).
 * Errors are swallowed (they surface as reconnects); `close()` drops it at once.
 */
export function lockConnection(port: number, options: LockConnectionOptions = {}): ClosableRedis {
  const { retryMs = 20 } = options;
  if (CLIENT_LIBRARY === 'node-redis') {
    const client = nodeRedis.createClient({
      socket: { host: '127.0.0.1', port, reconnectStrategy: retryMs === null ? false : () => retryMs },
    }) as RedisClientType;
    client.on('error', () => undefined);
    void client.connect().catch(() => undefined);
    const closable = Object.assign(client, {
      close() {
        opened.delete(closable);
        if (client.isOpen) client.destroy();
      },
    }) as unknown as ClosableRedis;
    opened.add(closable);
    return closable;
  }
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    retryStrategy: () => retryMs,
    ...(options.maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest: options.maxRetriesPerRequest }),
  });
  redis.on('error', () => undefined);
  const closable = Object.assign(redis, {
    close() {
      opened.delete(closable);
      redis.disconnect();
    },
  }) as unknown as ClosableRedis;
  opened.add(closable);
  return closable;
}
