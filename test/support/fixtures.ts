import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import type { Redis } from 'ioredis';
import { lastValueFrom } from 'rxjs';
import {
  createLockClient,
  monotonicScheduler,
  redisStore,
  type LockClient,
  type LockClientOptions,
  type LockStore,
  type RedisLike,
  type StoreConnection,
} from '../../src/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/testing.js';
import type { Reply, Script } from '../../src/store/Script.js';
import { eventually, isOpMemory } from './leaks.js';
import { SERVER_KIND, startRedis, type RedisServer } from './redisServer.js';

export type ClientSettings = Omit<LockClientOptions, 'redis' | 'store'>;

/** The Redis client libraries the contract suites run on: node-redis 4 and 6 only when asked for. */
export type ClientLibrary = 'ioredis' | 'node-redis' | 'node-redis-4' | 'node-redis-6';

const KNOWN_LIBRARIES: readonly ClientLibrary[] = ['ioredis', 'node-redis', 'node-redis-4', 'node-redis-6'];

/**
 * Which libraries `describeStores` runs each suite on against one redis-server: ioredis and node-redis 5,
 * unless `RXLOCK_CLIENTS` names some (`ioredis`, `node-redis`, `node-redis-4`, `node-redis-6`, comma-separated).
 */
export const CLIENT_LIBRARIES: readonly ClientLibrary[] = (() => {
  const asked = process.env.RXLOCK_CLIENTS?.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (asked === undefined || asked.length === 0) return ['ioredis', 'node-redis'];
  for (const name of asked) {
    if (!(KNOWN_LIBRARIES as readonly string[]).includes(name)) {
      throw new Error(`RXLOCK_CLIENTS: unknown client library ${JSON.stringify(name)} (${KNOWN_LIBRARIES.join(', ')})`);
    }
  }
  return asked as ClientLibrary[];
})();

/** A connection of `library` to `server`, for a lock client's store. */
function connectionOf(server: RedisServer, library: ClientLibrary): RedisLike {
  switch (library) {
    case 'ioredis':
      return server.client();
    case 'node-redis':
      return server.nodeRedis();
    case 'node-redis-4':
      return server.nodeRedis4();
    case 'node-redis-6':
      return server.nodeRedis6();
  }
}

/** One store under test, with the raw access the contract suite needs to set up and inspect state. */
export interface StoreFixture {
  readonly kind: 'memory' | 'redis';
  /** The Redis client library the lock clients use (`memory` on the memory store). */
  readonly library: 'memory' | ClientLibrary;
  /** Whether releases can hand a lock to a waiter directly here: they see whether its client listens (not on a cluster with classic pub/sub). */
  readonly directHandOff: boolean;
  /** A new client on this store; closed (and checked for leaks) after the test. */
  client(settings?: ClientSettings): LockClient;
  /** Scripts sent by this fixture's clients so far. */
  commands(): number;
  /** The raw replies (before parsing) of the script named `name` that this fixture's clients got so far, in order. */
  replies(name: string): Reply[];
  keys(): Promise<string[]>;
  /** Channels subscribed by anyone. */
  channels(): Promise<number>;
  /** Sets a string, expiring in `ttlMs` when given. */
  setString(key: string, value: string, ttlMs?: number): Promise<void>;
  setList(key: string, items: string[]): Promise<void>;
  setSet(key: string, members: string[]): Promise<void>;
  setHash(key: string, field: string, value: string, ttlMs?: number): Promise<void>;
  hget(key: string, field: string): Promise<string | null>;
  /** A whole hash, field → value ({} when the key is missing). */
  hgetall(key: string): Promise<Record<string, string>>;
  get(key: string): Promise<string | null>;
  pttl(key: string): Promise<number>;
  /** Adds a member (characters below U+0080 only, so that it is the same bytes on both stores) to a sorted set, expiring in `ttlMs` when given. */
  zadd(key: string, score: number, member: string, ttlMs?: number): Promise<void>;
  /** The store's clock in ms: Redis TIME, or the memory store's scheduler. */
  serverTime(): Promise<number>;
  /** A whole list, in order. */
  lrange(key: string): Promise<string[]>;
  /** A sorted set member's score, or null. */
  zscore(key: string, member: string): Promise<number | null>;
  /** Drops every key without publishing (a restart without persistence). */
  flush(): Promise<void>;
  /** Runs `script` once on a connection of its own, as a client's command (or a re-sent copy of one) would run; the parsed reply. */
  run<R>(script: Script<R>, keys: readonly string[], args: readonly (string | number)[]): Promise<R>;
  /** A key's type, as TYPE names it. */
  type(key: string): Promise<string>;
}

/** Runs one script on a new connection of `store`, closed afterwards. */
async function runOn<R>(store: LockStore, script: Script<R>, keys: readonly string[], args: readonly (string | number)[]): Promise<R> {
  const connection = store.connect(monotonicScheduler);
  try {
    return await lastValueFrom(connection.run(script, keys, args));
  } finally {
    await connection.close();
  }
}

/** Counts the scripts sent through `store`, and hands each raw reply to `heard` before it is parsed. */
function counting(store: LockStore, count: () => void, heard: (name: string, reply: Reply) => void): LockStore {
  // The same script, its parse reporting the raw reply first. Read field by field: some scripts are objects
  // with getters and methods (a fair lock's waiter), which a spread would not copy.
  const spied = <R>(script: Script<R>): Script<R> => {
    const { name, lua, sha1, memory } = script;
    const parse = (reply: Reply): R => {
      heard(name, reply);
      return script.parse(reply);
    };
    const handsOver = script.handsOver;
    return handsOver === undefined ? { name, lua, sha1, memory, parse } : { name, lua, sha1, memory, parse, handsOver };
  };
  return {
    connect(scheduler) {
      const connection = store.connect(scheduler);
      const call = connection.call?.bind(connection);
      // A plain object, not a subclass: the connection's methods use private fields.
      const wrapped: StoreConnection = {
        get publishCommand() {
          return connection.publishCommand;
        },
        get subscribersVisible() {
          return connection.subscribersVisible === true;
        },
        run: (script, keys, args, options) => {
          count();
          return connection.run(spied(script), keys, args, options);
        },
        ...(call === undefined
          ? {}
          : {
              call: (script, keys, args, observer, options) => {
                count();
                call(spied(script), keys, args, observer, options);
              },
            }),
        listen: (channel) => connection.listen(channel),
        epoch: () => connection.epoch(),
        slotOf: (key) => connection.slotOf(key),
        evictionPolicy: () => connection.evictionPolicy(),
        close: () => connection.close(),
      };
      return wrapped;
    },
  };
}

interface Backend {
  store(): LockStore;
  fixture: Omit<StoreFixture, 'client' | 'commands' | 'replies' | 'kind' | 'library' | 'directHandOff'>;
}

function memoryBackend(): Backend & { reset(): void } {
  let store: MemoryStore = createMemoryStore();
  return {
    reset: () => (store = createMemoryStore()),
    store: () => store,
    fixture: {
      keys: () => Promise.resolve(store.db.keys()),
      channels: () => Promise.resolve(store.subscriptionCount()),
      setString: (key, value, ttlMs) => Promise.resolve(void store.db.set(key, value, ttlMs === undefined ? {} : { px: ttlMs })),
      setList: (key, items) => Promise.resolve(items.forEach((item) => store.db.rpush(key, item))),
      setSet: (key, members) => Promise.resolve(members.forEach((member) => store.db.sadd(key, member))),
      setHash: (key, field, value, ttlMs) => {
        store.db.hset(key, field, value);
        if (ttlMs !== undefined) store.db.pexpire(key, ttlMs);
        return Promise.resolve();
      },
      hget: (key, field) => Promise.resolve(store.db.hget(key, field)),
      hgetall: (key) => Promise.resolve(Object.fromEntries(store.db.hkeys(key).map((field) => [field, store.db.hget(key, field) ?? '']))),
      get: (key) => Promise.resolve(store.db.get(key)),
      pttl: (key) => Promise.resolve(store.db.pttl(key)),
      zadd: (key, score, member, ttlMs) => {
        store.db.zadd(key, score, member);
        if (ttlMs !== undefined) store.db.pexpire(key, ttlMs);
        return Promise.resolve();
      },
      serverTime: () => Promise.resolve(store.db.time()),
      lrange: (key) => Promise.resolve(store.db.lrange(key)),
      zscore: (key, member) => Promise.resolve(store.db.zscore(key, member)),
      flush: () => Promise.resolve(store.restart()),
      run: (script, keys, args) => runOn(store, script, keys, args),
      type: (key) => Promise.resolve(store.db.type(key)),
    },
  };
}

/** Another Redis deployment for the contract suites (a cluster, in test/topologies): how to start, reach and inspect it. */
export interface RedisDeployment {
  readonly title: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A store on a new connection, for one client. */
  store(): LockStore;
  /** A client for setup and inspection that routes each command by its key (an ioredis Cluster passes as one). */
  admin(): Redis;
  keys(): Promise<string[]>;
  /** Channels subscribed by anyone, shard channels included. */
  channels(): Promise<number>;
  /** Drops every key (a restart without persistence). */
  flush(): Promise<void>;
  /** After each test: drops every key and whatever the test's clients left open. */
  reset(): Promise<void>;
  /** Whether a script's PUBSUB NUMSUB sees every client's subscriptions (see `StoreConnection.subscribersVisible`). */
  readonly subscribersVisible: boolean;
  /** The client library of `store()`'s clients. @default 'ioredis' */
  readonly library?: ClientLibrary;
}

let deployments: readonly RedisDeployment[] | undefined;

/** From now on `describeStores` runs each suite on these deployments instead of memory and one redis-server. */
export function describeStoresOn(targets: readonly RedisDeployment[]): void {
  deployments = targets;
}

/**
 * Runs `body` once against the memory store and once against a redis-server this file starts.
 * Every client a test creates is closed afterwards, and the test fails if keys (but op memory, see
 * `isOpMemory`) or subscriptions remain.
 */
export function describeStores(title: string, body: (fixture: () => StoreFixture) => void): void {
  const targets: { kind: 'memory' | 'redis'; library: 'memory' | ClientLibrary; deployment?: RedisDeployment }[] = deployments?.map((deployment) => ({
    kind: 'redis' as const,
    library: deployment.library ?? 'ioredis',
    deployment,
  })) ?? [{ kind: 'memory', library: 'memory' }, ...CLIENT_LIBRARIES.map((library) => ({ kind: 'redis' as const, library }))];
  for (const target of targets) {
    const { kind, library, deployment } = target;
    const label = deployment?.title ?? (kind === 'memory' ? 'memory' : library === 'ioredis' ? SERVER_KIND : `${SERVER_KIND}, ${library}`);
    describe(`${title} [${label}]`, () => {
      let server: RedisServer | undefined;
      let memory: ReturnType<typeof memoryBackend> | undefined;
      let clients: LockClient[] = [];
      let commands = 0;
      let replies = new Map<string, Reply[]>();
      let admin: ReturnType<RedisServer['client']> | undefined;

      beforeAll(async () => {
        if (deployment !== undefined) {
          await deployment.start();
          admin = deployment.admin();
        } else if (kind === 'redis') {
          server = await startRedis();
          admin = server.client();
        } else {
          memory = memoryBackend();
        }
      });
      afterAll(async () => {
        await server?.stop();
        await deployment?.stop();
      });
      afterEach(async () => {
        await Promise.all(clients.map((client) => client.close()));
        clients = [];
        commands = 0;
        replies = new Map<string, Reply[]>();
        // A hand-off reservation outlives an unlock by at most handoffMs (100 ms by default), then expires by itself.
        await eventually(async () => (await current.leftovers()).length === 0 && (await current.channels()) === 0, 1_000);
        const left = await current.leftovers();
        const channels = await current.channels();
        if (deployment !== undefined) await deployment.reset();
        else if (kind === 'redis') await admin?.flushall();
        else memory?.reset();
        expect({ keys: left, channels }).toEqual({ keys: [], channels: 0 });
      });

      const redisFixture = (): Backend['fixture'] => {
        const redis = admin!;
        return {
          keys: async () => (await redis.keys('*')).sort(),
          channels: async () => (await redis.pubsub('CHANNELS')).length,
          setString: async (key, value, ttlMs) => {
            if (ttlMs === undefined) await redis.set(key, value);
            else await redis.set(key, value, 'PX', ttlMs);
          },
          setList: async (key, items) => {
            await redis.rpush(key, ...items);
          },
          setSet: async (key, members) => {
            await redis.sadd(key, ...members);
          },
          setHash: async (key, field, value, ttlMs) => {
            await redis.hset(key, field, value);
            if (ttlMs !== undefined) await redis.pexpire(key, ttlMs);
          },
          hget: (key, field) => redis.hget(key, field),
          hgetall: (key) => redis.hgetall(key),
          get: (key) => redis.get(key),
          pttl: (key) => redis.pttl(key),
          zadd: async (key, score, member, ttlMs) => {
            await redis.zadd(key, score, member);
            if (ttlMs !== undefined) await redis.pexpire(key, ttlMs);
          },
          serverTime: async () => {
            const [seconds, micros] = await redis.time();
            return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
          },
          lrange: (key) => redis.lrange(key, 0, -1),
          zscore: async (key, member) => {
            const score = await redis.zscore(key, member);
            return score === null ? null : Number(score);
          },
          flush: async () => {
            await redis.flushall();
          },
          run: (script, keys, args) => runOn(redisStore(redis), script, keys, args),
          type: (key) => redis.type(key),
          ...(deployment === undefined
            ? {}
            : { keys: async () => (await deployment.keys()).sort(), channels: () => deployment.channels(), flush: () => deployment.flush() }),
        };
      };

      const current = {
        channels: () => (kind === 'redis' ? redisFixture().channels() : memory!.fixture.channels()),
        leftovers: async () => {
          const raw = kind === 'redis' ? redisFixture() : memory!.fixture;
          const keys = await raw.keys();
          const ttls = await Promise.all(keys.map((key) => raw.pttl(key)));
          return keys.filter((key, i) => !isOpMemory(key, ttls[i] ?? -1));
        },
      };

      body(() => {
        const raw = kind === 'redis' ? redisFixture() : memory!.fixture;
        return {
          kind,
          library,
          directHandOff: deployment?.subscribersVisible ?? true,
          ...raw,
          commands: () => commands,
          replies: (name) => [...(replies.get(name) ?? [])],
          client(settings = {}) {
            const base = deployment?.store() ?? (kind === 'memory' ? memory!.store() : redisStore(connectionOf(server!, library as ClientLibrary)));
            const heard = (name: string, reply: Reply): void => {
              let list = replies.get(name);
              if (list === undefined) replies.set(name, (list = []));
              list.push(reply);
            };
            const client = createLockClient({ store: counting(base, () => commands++, heard), ...settings });
            clients.push(client);
            return client;
          },
        };
      });
    });
  }
}
