import { spawn } from 'node:child_process';
import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import type { RedisClusterType } from 'redis';
import calculateSlot from 'cluster-key-slot';
import { redisStore } from '../../src/index.js';
import { nodeRedis } from './clientLibrary.js';
import type { RedisDeployment } from './fixtures.js';
import { eventually, sleep } from './leaks.js';
import { cliBinary, freePort, startRedis, type RedisServer } from './redisServer.js';

/** One redis-server of a local cluster. */
export interface ClusterNode {
  readonly server: RedisServer;
  readonly port: number;
  /** The cluster bus port (`cluster-port`), chosen free like the client port. */
  readonly busPort: number;
  /** Whether the process runs (false after `kill`, until `restart`). */
  readonly alive: boolean;
}

export interface LocalClusterOptions {
  /** @default 3 */
  masters?: number;
  /** Replicas per master. @default 1 */
  replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long a silent master stays a master. @default 1000 */
  nodeTimeoutMs?: number;
}

/** A Redis Cluster of redis-server processes on free loopback ports, in temp dirs, that the test started. */
export interface LocalCluster {
  readonly nodes: readonly ClusterNode[];
  readonly startupNodes: readonly { host: string; port: number }[];
  /** A new ioredis Cluster client; closed by `stop()`. */
  client(options?: ClusterOptions): Cluster;
  /** A new node-redis cluster client, connecting (commands wait for it); closed by `stop()`. */
  nodeRedis(): RedisClusterType;
  /** A direct connection to one node (not following redirections); closed by `stop()`. */
  nodeClient(port: number): Redis;
  /** The node that currently serves `slot` as master, asked of a live node. */
  masterOfSlot(slot: number): Promise<ClusterNode>;
  masterOfKey(key: string): Promise<ClusterNode>;
  /** The live nodes that serve slots as masters. */
  masters(): Promise<ClusterNode[]>;
  /** The node ids as the cluster knows them, by port. */
  nodeId(port: number): Promise<string>;
  /** Moves `slot` with its keys to `target`, as `redis-cli --cluster reshard` does (IMPORTING, MIGRATING, MIGRATE, SETSLOT NODE). */
  migrateSlot(slot: number, target: ClusterNode, options?: { pauseMsBetweenSteps?: number }): Promise<void>;
  /** SIGKILLs a node (it stays down until `restart`). */
  kill(node: ClusterNode): Promise<void>;
  /** Starts a killed node again on its port with its nodes.conf and no data. */
  restart(node: ClusterNode): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` with all 16384 slots served. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Keys on every live master. */
  keys(): Promise<string[]>;
  /** Classic plus shard channels subscribed on every live node. */
  channels(): Promise<string[]>;
  /** FLUSHALL on every live master. */
  flushAll(): Promise<void>;
  /** Closes every pub/sub connection on every live node (between tests: nothing subscribes then but a leak). */
  dropSubscribers(): Promise<void>;
  stop(): Promise<void>;
}

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`))));
  });
}

/** Starts `masters` masters with `replicasPerMaster` replicas each and joins them with `redis-cli --cluster create`. */
export async function startCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const { masters = 3, replicasPerMaster = 1, nodeTimeoutMs = 1_000 } = options;
  const count = masters * (1 + replicasPerMaster);
  const nodes: (ClusterNode & { alive: boolean })[] = [];
  const connections = new Set<Redis | Cluster>();
  const nodeRedisClusters = new Set<RedisClusterType>();
  try {
    for (let i = 0; i < count; i++) {
      const busPort = await freePort();
      const server = await startRedis([
        '--cluster-enabled',
        'yes',
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        '--cluster-port',
        String(busPort),
        // A replica of a failed master takes over whatever its replication offset (no data-age limit).
        '--cluster-replica-validity-factor',
        '0',
        '--cluster-allow-reads-when-down',
        'no',
      ]);
      nodes.push({ server, port: server.port, busPort, alive: true });
    }
    await run(cliBinary(), [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      String(replicasPerMaster),
      '--cluster-yes',
    ]);
  } catch (error) {
    await Promise.all(nodes.map((node) => node.server.stop()));
    throw error;
  }

  const nodeClient = (port: number): Redis => {
    const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
    redis.on('error', () => undefined);
    connections.add(redis);
    return redis;
  };
  /** A one-off command on a node, on a connection closed right after. */
  const ask = async <T>(port: number, send: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = nodeClient(port);
    try {
      return await send(redis);
    } finally {
      redis.disconnect();
      connections.delete(redis);
    }
  };
  const live = (): ClusterNode[] => nodes.filter((node) => node.alive);
  const byPort = (port: number): ClusterNode => {
    const node = nodes.find((candidate) => candidate.port === port);
    if (node === undefined) throw new Error(`no cluster node on port ${port}`);
    return node;
  };
  const clusterNodes = async (): Promise<{ id: string; port: number; flags: string[]; slots: string[] }[]> => {
    for (const node of live()) {
      try {
        const text = await ask(node.port, (redis) => redis.cluster('NODES') as Promise<string>);
        return text
          .trim()
          .split('\n')
          .map((line) => {
            const [id = '', address = '', flags = '', , , , , , ...slots] = line.split(' ');
            return { id, port: Number(/:(\d+)@/.exec(address)?.[1] ?? 0), flags: flags.split(','), slots };
          });
      } catch {
        // Ask the next live node.
      }
    }
    throw new Error('no live cluster node answered CLUSTER NODES');
  };
  const masterOfSlot = async (slot: number): Promise<ClusterNode> => {
    for (const node of await clusterNodes()) {
      if (!node.flags.includes('master') || node.flags.includes('fail')) continue;
      for (const range of node.slots) {
        if (range.startsWith('[')) continue;
        const [from = '', to = from] = range.split('-');
        if (slot >= Number(from) && slot <= Number(to)) return byPort(node.port);
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  };
  const nodeId = async (port: number): Promise<string> => {
    const id = (await clusterNodes()).find((node) => node.port === port)?.id;
    if (id === undefined) throw new Error(`the cluster does not know port ${port}`);
    return id;
  };
  const liveMasters = async (): Promise<ClusterNode[]> => {
    const known = await clusterNodes();
    return live().filter((node) => known.some((entry) => entry.port === node.port && entry.flags.includes('master') && !entry.flags.includes('fail')));
  };

  const cluster: LocalCluster = {
    nodes,
    startupNodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
    client(clientOptions = {}) {
      const client = new Cluster(
        nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
        { slotsRefreshTimeout: 2_000, ...clientOptions },
      );
      client.on('error', () => undefined);
      client.on('node error', () => undefined);
      connections.add(client);
      return client;
    },
    nodeRedis() {
      const client = nodeRedis.createCluster({
        rootNodes: nodes.map((node) => ({ socket: { host: '127.0.0.1', port: node.port } })),
        defaults: { socket: { reconnectStrategy: () => 100 } },
      }) as unknown as RedisClusterType;
      client.on('error', () => undefined);
      client.on('node-error', () => undefined);
      void client.connect().catch(() => undefined);
      nodeRedisClusters.add(client);
      return client;
    },
    nodeClient,
    masterOfSlot,
    masterOfKey: (key) => masterOfSlot(calculateSlot(key)),
    masters: liveMasters,
    nodeId,
    async migrateSlot(slot, target, { pauseMsBetweenSteps = 0 } = {}) {
      const source = await masterOfSlot(slot);
      if (source === target) return;
      const [sourceId, targetId] = [await nodeId(source.port), await nodeId(target.port)];
      await ask(target.port, (redis) => redis.cluster('SETSLOT', slot, 'IMPORTING', sourceId));
      await ask(source.port, (redis) => redis.cluster('SETSLOT', slot, 'MIGRATING', targetId));
      await sleep(pauseMsBetweenSteps);
      for (;;) {
        const keys = await ask(source.port, (redis) => redis.cluster('GETKEYSINSLOT', slot, 100));
        if (keys.length === 0) break;
        await ask(source.port, (redis) => redis.migrate('127.0.0.1', target.port, '', 0, 5_000, 'REPLACE', 'KEYS', ...keys));
      }
      await sleep(pauseMsBetweenSteps);
      // Target first, then the source, then everyone else: the order redis-cli uses.
      await ask(target.port, (redis) => redis.cluster('SETSLOT', slot, 'NODE', targetId));
      await ask(source.port, (redis) => redis.cluster('SETSLOT', slot, 'NODE', targetId));
      for (const node of await liveMasters()) {
        if (node !== source && node !== target) await ask(node.port, (redis) => redis.cluster('SETSLOT', slot, 'NODE', targetId)).catch(() => undefined);
      }
    },
    async kill(node) {
      const entry = nodes.find((candidate) => candidate === node);
      if (entry === undefined || !entry.alive) return;
      entry.alive = false;
      entry.server.signal('SIGKILL');
      await sleep(20);
    },
    async restart(node) {
      const entry = nodes.find((candidate) => candidate === node);
      if (entry === undefined) return;
      await entry.server.restart();
      entry.alive = true;
    },
    async waitHealthy(timeoutMs = 30_000) {
      const healthy = await eventually(
        async () => {
          try {
            for (const node of live()) {
              const info = await ask(node.port, (redis) => redis.cluster('INFO'));
              if (!info.includes('cluster_state:ok') || !info.includes('cluster_slots_ok:16384')) return false;
            }
            // Every replica has finished its initial sync.
            for (const node of live()) {
              const replication = await ask(node.port, (redis) => redis.info('replication'));
              if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
            }
            return true;
          } catch {
            return false;
          }
        },
        timeoutMs,
        100,
      );
      if (!healthy) throw new Error(`the cluster did not become healthy within ${timeoutMs} ms`);
    },
    async keys() {
      const all = await Promise.all((await liveMasters()).map((node) => ask(node.port, (redis) => redis.keys('*'))));
      return all.flat().sort();
    },
    async channels() {
      const all = await Promise.all(
        live().map((node) =>
          ask(node.port, async (redis) => [...((await redis.pubsub('CHANNELS')) as string[]), ...((await redis.call('PUBSUB', 'SHARDCHANNELS')) as string[])]),
        ),
      );
      return all.flat().sort();
    },
    async dropSubscribers() {
      await Promise.all(live().map((node) => ask(node.port, (redis) => redis.client('KILL', 'TYPE', 'pubsub'))));
    },
    async flushAll() {
      await Promise.all((await liveMasters()).map((node) => ask(node.port, (redis) => redis.flushall())));
    },
    async stop() {
      for (const connection of connections) connection.disconnect();
      connections.clear();
      for (const client of nodeRedisClusters) if (client.isOpen) client.destroy();
      nodeRedisClusters.clear();
      await Promise.all(nodes.map((node) => node.server.stop()));
    },
  };
  await cluster.waitHealthy();
  return cluster;
}

/**
 * The contract suites' view of one shared local cluster (see `describeStoresOn`): every client gets its own
 * ioredis Cluster, with sharded pub/sub or without. Clients come from a pool of connected ones, so that a test
 * that starts clients a few ms apart (fair-lock order) measures the lock, not a cluster handshake; each test's
 * clients are disconnected after it. The cluster starts on first use; the test file stops it.
 */
export function clusterDeployment(shared: () => Promise<LocalCluster>, options: { sharded: boolean }): RedisDeployment {
  const POOL = 10;
  let cluster: LocalCluster | undefined;
  let admin: Cluster | undefined;
  const ready: Cluster[] = [];
  const handedOut: Cluster[] = [];
  const started = (): LocalCluster => {
    if (cluster === undefined) throw new Error('the cluster deployment was not started');
    return cluster;
  };
  const connected = async (): Promise<Cluster> => {
    const client = started().client({ shardedSubscribers: options.sharded });
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    // Node connections open lazily on first use: open them now, as a single-server client is open at once.
    await Promise.all(client.nodes('master').map((node) => node.ping()));
    return client;
  };
  const refill = async (): Promise<void> => {
    while (ready.length < POOL) ready.push(await connected());
  };
  return {
    title: `cluster, ${options.sharded ? 'sharded' : 'classic'} pub/sub`,
    // Each node counts only its own subscribers for classic pub/sub; a shard channel's subscribers are on its slot's master.
    subscribersVisible: options.sharded,
    async start() {
      cluster = await shared();
      admin = cluster.client();
      await refill();
    },
    stop() {
      for (const client of [...ready, ...handedOut]) client.disconnect();
      ready.length = 0;
      handedOut.length = 0;
      admin?.disconnect();
      admin = undefined;
      return Promise.resolve();
    },
    store: () => {
      const client = ready.shift() ?? started().client({ shardedSubscribers: options.sharded });
      handedOut.push(client);
      return redisStore(client);
    },
    // A Cluster routes every keyed command like a Redis client runs it; the fixture uses only keyed commands through it.
    admin: () => admin as unknown as Redis,
    keys: () => started().keys(),
    channels: async () => (await started().channels()).length,
    flush: () => started().flushAll(),
    async reset() {
      for (const client of handedOut.splice(0)) client.disconnect();
      await started().flushAll();
      // A subscription one test leaked fails that test; dropped here, it cannot fail every test after it too.
      await started().dropSubscribers();
      await refill();
    },
  };
}

/**
 * The contract suites' view of one shared local cluster through node-redis: every client gets its own node-redis
 * cluster (sharded pub/sub by default; classic with `shardedPubSub: false`). Closed after each test.
 */
export function nodeRedisClusterDeployment(shared: () => Promise<LocalCluster>, options: { sharded: boolean }): RedisDeployment {
  let cluster: LocalCluster | undefined;
  let admin: Cluster | undefined;
  const handedOut: RedisClusterType[] = [];
  const started = (): LocalCluster => {
    if (cluster === undefined) throw new Error('the cluster deployment was not started');
    return cluster;
  };
  return {
    title: `cluster, node-redis, ${options.sharded ? 'sharded' : 'classic'} pub/sub`,
    library: 'node-redis',
    subscribersVisible: options.sharded,
    async start() {
      cluster = await shared();
      admin = cluster.client();
    },
    stop() {
      for (const client of handedOut.splice(0)) if (client.isOpen) client.destroy();
      admin?.disconnect();
      admin = undefined;
      return Promise.resolve();
    },
    store: () => {
      const client = started().nodeRedis();
      handedOut.push(client);
      return redisStore(client, { shardedPubSub: options.sharded });
    },
    admin: () => admin as unknown as Redis,
    keys: () => started().keys(),
    channels: async () => (await started().channels()).length,
    flush: () => started().flushAll(),
    async reset() {
      for (const client of handedOut.splice(0)) if (client.isOpen) client.destroy();
      await started().flushAll();
      await started().dropSubscribers();
    },
  };
}
