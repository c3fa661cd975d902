import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { CliError, EXIT_USAGE } from '../CliError.js';
import type { Connection } from './Connection.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_URL, type ConnectionFlags } from './ConnectionFlags.js';

export interface ConnectBehaviour {
  /**
   * Reconnect after the connection is lost once it was established (`watch`). Connecting the first time
   * never retries: a command line must say at once that it cannot connect.
   * @default false
   */
  reconnect?: boolean | undefined;
  /**
   * On a cluster, let rxlock's store announce with SPUBLISH (Redis 7+), as clients created with
   * `shardedSubscribers: true` (and Redisson) listen.
   * @default false: classic PUBLISH
   */
  shardedPubSub?: boolean | undefined;
}

/** Opens the connection the flags describe, or fails fast with a CliError naming the address. */
export async function connect(flags: ConnectionFlags, behaviour: ConnectBehaviour = {}): Promise<Connection> {
  const timeout = flags.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
  let established = false;
  const reconnecting = (): boolean => established && behaviour.reconnect === true;
  const retryStrategy = (times: number): number | null => (reconnecting() ? Math.min(times * 200, 2_000) : null);
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeout,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    retryStrategy,
    ...(flags.user !== undefined && { username: flags.user }),
    ...(flags.password !== undefined && { password: flags.password }),
    ...tlsOptions(flags),
  };
  const { redis, address } =
    flags.cluster !== undefined ? openCluster(flags.cluster, options, reconnecting, behaviour.shardedPubSub === true) : openServer(flags.url, options);
  let lastError: Error | undefined;
  // ioredis reports connection problems as 'error' events; without a listener Node would crash on them.
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await withDeadline(redis.connect(), timeout + 1_000);
  } catch (error) {
    redis.disconnect();
    throw cannotConnect(address, lastError ?? error);
  }
  if (redis instanceof Redis) await selectDatabase(redis, address, timeout);
  established = true;
  const connection: Connection = {
    redis,
    address,
    masters: () => (redis instanceof Cluster ? redis.nodes('master') : [redis]),
    nodes: () => (redis instanceof Cluster ? redis.nodes('all') : [redis]),
    close: async () => {
      try {
        await withDeadline(redis.quit(), 1_000);
      } catch {
        redis.disconnect();
      }
    },
  };
  return connection;
}

function openServer(url: string | undefined, options: RedisOptions): { redis: Redis; address: string } {
  const target = url ?? process.env['REDIS_URL'] ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    throw new CliError(`--url: ${JSON.stringify(target)} is not a URL; expected redis://host:port or rediss://host:port`, EXIT_USAGE);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new CliError(`--url: ${JSON.stringify(target)} must start with redis:// or rediss://`, EXIT_USAGE);
  }
  const db = parsed.pathname.length > 1 ? parsed.pathname : '';
  if (db !== '' && !/^\/\d{1,9}$/.test(db)) {
    throw new CliError(
      `--url: ${JSON.stringify(target)} names database ${JSON.stringify(db.slice(1))}; expected a number, as in redis://host:port/0`,
      EXIT_USAGE,
    );
  }
  const address = `${parsed.protocol}//${parsed.hostname}:${parsed.port === '' ? '6379' : parsed.port}${db}`;
  const password = options.password ?? process.env['REDIS_PASSWORD'];
  return { redis: new Redis(target, { ...options, ...(password !== undefined && { password }) }), address };
}

function openCluster(seedList: string, options: RedisOptions, reconnecting: () => boolean, shardedSubscribers: boolean): { redis: Cluster; address: string } {
  const seeds = seedList.split(',').map((seed) => {
    const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(seed.trim());
    if (match === null) throw new CliError(`--cluster: ${JSON.stringify(seed)} is not host:port`, EXIT_USAGE);
    return { host: match[1] ?? '', port: Number(match[2]) };
  });
  const password = options.password ?? process.env['REDIS_PASSWORD'];
  const { lazyConnect, enableOfflineQueue, retryStrategy, ...redisOptions } = options;
  const redis = new Cluster(seeds, {
    lazyConnect,
    enableOfflineQueue,
    clusterRetryStrategy: (times) => (reconnecting() ? (retryStrategy?.(times) ?? null) : null),
    slotsRefreshTimeout: options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
    shardedSubscribers,
    redisOptions: { ...redisOptions, ...(password !== undefined && { password }) },
  });
  return { redis, address: seeds.map(({ host, port }) => `${host}:${port}`).join(',') };
}

/**
 * ioredis sends the URL's SELECT during its handshake and, when the server refuses it (a database it does not
 * have), only emits an 'error' and carries on in database 0. Selecting again, and awaiting it, makes that a
 * failure to connect instead of a command run on the wrong database.
 */
async function selectDatabase(redis: Redis, address: string, timeout: number): Promise<void> {
  const db = redis.options.db ?? 0;
  if (db === 0) return;
  try {
    await withDeadline(redis.select(db), timeout);
  } catch (error) {
    redis.disconnect();
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`cannot use database ${String(db)} of Redis at ${address}: ${message} (check the /db of --url or REDIS_URL)`);
  }
}

function tlsOptions(flags: ConnectionFlags): Pick<RedisOptions, 'tls'> {
  if (flags.tlsCa !== undefined) {
    let ca: Buffer;
    try {
      ca = readFileSync(flags.tlsCa);
    } catch (error) {
      throw new CliError(`--tls-ca: cannot read ${flags.tlsCa}: ${error instanceof Error ? error.message : String(error)}`, EXIT_USAGE);
    }
    return { tls: { ca } satisfies ConnectionOptions };
  }
  return flags.tls === true ? { tls: {} } : {};
}

function cannotConnect(address: string, error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error);
  if (/WRONGPASS|NOAUTH|NOPERM|invalid password|invalid username/i.test(message)) {
    return new CliError(`cannot log in to Redis at ${address}: ${message} (check --user and --password or REDIS_PASSWORD)`);
  }
  return new CliError(`cannot connect to Redis at ${address}: ${message} (check --url, REDIS_URL or --cluster)`);
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
