import { Redis, type RedisOptions } from 'ioredis';
import { startRedis } from '../test/support/redisServer.js';

/** The Redis every contender runs against in one bench run. */
export interface BenchServer {
  /** What it is, for the report: version and address, and whether the bench started it. */
  readonly description: string;
  /** Where it listens, for child processes of the bench (may carry a password: never printed). */
  readonly url: string;
  /** Uncounted connection for setup and inspection. */
  readonly admin: Redis;
  /** A new connection to the server; the caller closes it. */
  connect(options?: RedisOptions): Redis;
  /**
   * A new connection for SUBSCRIBE, once ready: ioredis 5 writes a SUBSCRIBE sent during its handshake at
   * once, then fails its own ready check on the subscribed connection and reconnects without the channels
   * (ioredis #2037).
   */
  listener(): Promise<Redis>;
  /** Deletes every key whose name contains `marker` (SCAN, never KEYS or FLUSH: REDIS_URL may be shared). */
  deleteKeys(marker: string): Promise<void>;
  /** Names of the keys that contain `marker`. */
  keys(marker: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** Starts a redis-server on a free loopback port, or uses REDIS_URL when it is set. */
export async function openServer(redisUrl: string | undefined): Promise<BenchServer> {
  const started = redisUrl === undefined ? await startRedis() : undefined;
  const url = redisUrl ?? started!.url;
  const connect = (options: RedisOptions = {}): Redis => {
    const redis = new Redis(url, options);
    // ioredis reports connection errors as events; the figures count failed operations instead.
    redis.on('error', () => undefined);
    return redis;
  };
  const admin = connect();
  const info = await admin.info('server');
  const version = /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
  const where = started === undefined ? `${redactedUrl(url)} (REDIS_URL)` : `127.0.0.1:${started.port} (started by the bench)`;
  const keys = async (marker: string): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'MATCH', `*${marker}*`, 'COUNT', 1_000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found;
  };
  return {
    description: `redis-server ${version} on ${where}`,
    url,
    admin,
    connect,
    async listener() {
      const redis = connect();
      if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
      return redis;
    },
    keys,
    async deleteKeys(marker) {
      const found = await keys(marker);
      for (let i = 0; i < found.length; i += 500) await admin.unlink(...found.slice(i, i + 500));
    },
    async stop() {
      admin.disconnect();
      await started?.stop();
    },
  };
}

function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** Connections a probe opens with `connect` (for its contenders) and closes all at once with `disconnectAll`. */
export interface TrackedConnections {
  readonly connect: () => Redis;
  readonly disconnectAll: () => void;
}

export function trackedConnections(server: BenchServer): TrackedConnections {
  const opened: Redis[] = [];
  return {
    connect: () => {
      const redis = server.connect();
      opened.push(redis);
      return redis;
    },
    disconnectAll: () => {
      for (const redis of opened.splice(0)) redis.disconnect();
    },
  };
}
