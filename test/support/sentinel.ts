import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisSentinelType } from 'redis';
import { nodeRedis } from './clientLibrary.js';
import { eventually } from './leaks.js';
import { startProxy, type TcpProxy } from './proxy.js';
import { freePort, serverBinary, startRedis, type RedisServer } from './redisServer.js';

export interface SentinelGroupOptions {
  /** Replicas of the master, each replicating through its own TCP proxy (see `replicationLink`). @default 1 */
  replicas?: number;
  /** Sentinels watching the master; the quorum is a majority of them. @default 3 */
  sentinels?: number;
  /** `down-after-milliseconds`: how long the master may be silent before a sentinel calls it down. @default 1000 */
  downAfterMs?: number;
  /** `failover-timeout`. @default 5000 */
  failoverTimeoutMs?: number;
}

/** A master, its replicas and sentinels on free loopback ports, in temp dirs, started by the test. */
export interface SentinelGroup {
  readonly name: string;
  /** The data nodes: the first master, then the replicas. */
  readonly servers: readonly RedisServer[];
  readonly sentinelPorts: readonly number[];
  /** The proxy each replica replicates through (index 0 is the first replica's): `blackhole` makes it fall behind silently. */
  replicationLink(replica: number): TcpProxy;
  /** A new ioredis client that finds the master through the sentinels; closed by `stop()`. */
  client(options?: RedisOptions): Redis;
  /** A new node-redis sentinel client (createSentinel), connecting (commands wait for it); closed by `stop()`. */
  nodeRedis(): RedisSentinelType;
  /** A direct connection to one data node; closed by `stop()`. */
  direct(server: RedisServer): Redis;
  /** The master's port as the sentinels report it. */
  masterPort(): Promise<number>;
  /** Resolves once the sentinels report a master other than `port` and that node says it is a master. */
  waitForNewMaster(port: number, timeoutMs?: number): Promise<number>;
  /** Resolves once the current master has `count` replicas online (a restarted node rejoins as one). */
  waitForReplicas(count: number, timeoutMs?: number): Promise<void>;
  /** SIGKILLs a data node; it stays down until `restart`. */
  kill(server: RedisServer): Promise<void>;
  /** Starts a killed data node again, empty, on its port (the sentinels reconfigure it as a replica). */
  restart(server: RedisServer): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one sentinel process and resolves when it monitors the master. */
async function launchSentinel(masterPort: number, name: string, quorum: number, options: Required<SentinelGroupOptions>) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rxlock-sentinel-'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      'protected-mode no',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} ${quorum}`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs}`,
      `sentinel failover-timeout ${name} ${options.failoverTimeoutMs}`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(serverBinary(), [config, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`sentinel on ${port} did not start within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('+monitor master')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sentinel on ${port} exited with ${code}:\n${output}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a master, `replicas` replicas that replicate through TCP proxies (so a test can cut a replication link
 * silently), and `sentinels` sentinels with a majority quorum. Resolves once every replica is in sync and every
 * sentinel knows them all.
 */
export async function startSentinelGroup(options: SentinelGroupOptions = {}): Promise<SentinelGroup> {
  const settings: Required<SentinelGroupOptions> = { replicas: 1, sentinels: 3, downAfterMs: 1_000, failoverTimeoutMs: 5_000, ...options };
  const name = 'rxlock-master';
  const connections = new Set<Redis>();
  const nodeRedisSentinels = new Set<RedisSentinelType>();
  const master = await startRedis();
  const servers: RedisServer[] = [master];
  const links: TcpProxy[] = [];
  const sentinels: Awaited<ReturnType<typeof launchSentinel>>[] = [];
  const stop = async (): Promise<void> => {
    for (const sentinel of nodeRedisSentinels) if (sentinel.isOpen) await sentinel.destroy();
    nodeRedisSentinels.clear();
    for (const connection of connections) connection.disconnect();
    connections.clear();
    await Promise.all(sentinels.map((sentinel) => sentinel.stop()));
    await Promise.all(links.map((link) => link.close()));
    await Promise.all(servers.map((server) => server.stop()));
  };
  const direct = (server: RedisServer): Redis => {
    const redis = new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => undefined);
    connections.add(redis);
    return redis;
  };
  const ask = async <T>(port: number, send: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await send(redis);
    } finally {
      redis.disconnect();
    }
  };
  try {
    for (let i = 0; i < settings.replicas; i++) {
      const link = await startProxy(master.port);
      links.push(link);
      // The replica announces its own port, so the sentinels reach it directly; only replication goes through the proxy.
      servers.push(await startRedis(['--replicaof', '127.0.0.1', String(link.port)]));
    }
    const synced = await eventually(
      async () =>
        (await Promise.all(servers.slice(1).map((server) => ask(server.port, (redis) => redis.info('replication'))))).every((info) =>
          info.includes('master_link_status:up'),
        ),
      15_000,
      50,
    );
    if (!synced) throw new Error('the replicas did not sync with the master within 15 s');
    const quorum = Math.floor(settings.sentinels / 2) + 1;
    for (let i = 0; i < settings.sentinels; i++) sentinels.push(await launchSentinel(master.port, name, quorum, settings));
    const known = await eventually(
      async () => {
        for (const sentinel of sentinels) {
          const state = (await ask(sentinel.port, (redis) => redis.call('SENTINEL', 'MASTER', name))) as string[];
          const field = (key: string): number => Number(state[state.indexOf(key) + 1]);
          if (field('num-slaves') < settings.replicas || field('num-other-sentinels') < settings.sentinels - 1) return false;
        }
        return true;
      },
      20_000,
      100,
    );
    if (!known) throw new Error('the sentinels did not discover every replica and each other within 20 s');
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPort = async (): Promise<number> => {
    for (const sentinel of sentinels) {
      try {
        const [, port] = (await ask(sentinel.port, (redis) => redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name))) as [string, string];
        return Number(port);
      } catch {
        // Ask the next sentinel.
      }
    }
    throw new Error('no sentinel answered');
  };

  return {
    name,
    servers,
    sentinelPorts: sentinels.map((sentinel) => sentinel.port),
    replicationLink(replica) {
      const link = links[replica];
      if (link === undefined) throw new Error(`no replica ${replica}`);
      return link;
    },
    client(clientOptions = {}) {
      const redis = new Redis({ sentinels: sentinels.map((sentinel) => ({ host: '127.0.0.1', port: sentinel.port })), name, ...clientOptions });
      redis.on('error', () => undefined);
      connections.add(redis);
      return redis;
    },
    nodeRedis() {
      const sentinel = nodeRedis.createSentinel({
        name,
        sentinelRootNodes: sentinels.map((entry) => ({ host: '127.0.0.1', port: entry.port })),
        // A strategy that gives up, as docs/clients.md advises: with one that retries forever, node-redis 5 can
        // wait forever on a connection to the dead master and never follow the failover (redis/node-redis#3061).
        nodeClientOptions: { socket: { reconnectStrategy: (retries: number) => (retries < 20 ? 100 : false) } },
      }) as unknown as RedisSentinelType;
      sentinel.on('error', () => undefined);
      void sentinel.connect().catch(() => undefined);
      nodeRedisSentinels.add(sentinel);
      return sentinel;
    },
    direct,
    masterPort,
    async waitForNewMaster(port, timeoutMs = 20_000) {
      let found = 0;
      const promoted = await eventually(
        async () => {
          const current = await masterPort().catch(() => port);
          if (current === port) return false;
          const role = await ask(current, (redis) => redis.info('replication')).catch(() => '');
          found = current;
          return role.includes('role:master');
        },
        timeoutMs,
        50,
      );
      if (!promoted) throw new Error(`the sentinels did not promote a new master within ${timeoutMs} ms`);
      return found;
    },
    async waitForReplicas(count, timeoutMs = 30_000) {
      const online = await eventually(
        async () => {
          const info = await ask(await masterPort(), (redis) => redis.info('replication')).catch(() => '');
          return (info.match(/^slave\d+:.*state=online/gm) ?? []).length >= count;
        },
        timeoutMs,
        100,
      );
      if (!online) throw new Error(`the master did not get ${count} replica(s) online within ${timeoutMs} ms`);
    },
    async kill(server) {
      server.signal('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
    restart: (server) => server.restart(),
    stop,
  };
}
