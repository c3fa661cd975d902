/**
 * Where the node-redis path's uncontended cycle goes. The uncontended scenario's 16 workers (own keys, own
 * connections) in interleaved rounds within one process, for five contenders:
 * - `floor`: two EVALSHAs of `return 1` through `sendCommand`, as the bench's node-redis floor;
 * - `scripts`: rxlock's lock acquire and release scripts through `sendCommand`, prebuilt, no engine;
 * - `bare`: the least any lock API over those scripts adds: a promise around each command, with rxlock's
 *   command options, a clock read at both ends of the acquire and one at the release, and a lease object
 *   kept in a list while held. No engine: nothing that waits, renews, times out or compensates;
 * - `scripts+engine`: those scripts, and around them the whole engine (`acquire`, `release`) of a lock client
 *   whose store answers at once without I/O (the Redis store over a driver that replies as Redis would to a
 *   free lock): everything rxlock does per cycle except its commands going through node-redis;
 * - `rxlock`: rxlock's lock over node-redis, as the bench's `rxlock-node-redis`.
 * Per round: cycles per second, the process's CPU per cycle and Redis's (`INFO cpu`). Then the medians, and the
 * median over rounds of each contender's ratio to the floor of the same round. Against `scripts`: `bare` is what
 * any promise API over these scripts costs at least, and `scripts+engine` what rxlock's engine costs among
 * node-redis's work (`engineCost.ts` measures that engine alone in a tight loop). Run after `npm run build`:
 * `node --import tsx bench/probes/nodeRedisCycle.ts` (`PROBE_ROUNDS`, default 11; `PROBE_MS`, default 1000; `PROBE_CONTENDERS`,
 * a comma-separated subset).
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type * as AcquireScript from '../../src/primitives/lock/acquireScript.js';
import type * as RedisStoreModule from '../../src/store/redis/RedisStore.js';
import type { RedisDriver } from '../../src/store/redis/driver/RedisDriver.js';
import { RXLOCK_LOCK_SCRIPTS } from '../contenders/rxlockScripts.js';
import { median } from '../histogram.js';
import { dist, rxlock } from '../rxlock.js';
import { openServer } from '../server.js';
import { runCycleWindow, type CycleLoop } from './cycleWindow.js';
import { probeSize } from './size.js';

const { driverStore } = (await import(`${dist}/store/redis/RedisStore.js`)) as typeof RedisStoreModule;
const { lockAcquireScript } = (await import(`${dist}/primitives/lock/acquireScript.js`)) as typeof AcquireScript;

const WORKERS = 16;
const ROUNDS = Number(process.env['PROBE_ROUNDS'] ?? probeSize(11, 1));
const ROUND_MS = Number(process.env['PROBE_MS'] ?? probeSize(1_000, 200));
const MARKER = `node-redis-cycle-${String(process.pid)}`;

/** rxlock's command options (see the node-redis driver): `bare` sends its commands with them too. */
const RAW = Object.freeze({ typeMapping: Object.freeze({}) });

interface BareLease {
  readonly key: string;
  readonly deadline: number;
  readonly at: number;
  index: number;
}

type Client = Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;

/** Replies as Redis does to a free lock's acquire (granted, no fencing token) and its final release (nobody waiting), at once. */
const instantDriver: RedisDriver = {
  description: 'a driver that answers at once',
  isCluster: false,
  shardedSubscribers: false,
  unusable: () => undefined,
  evalsha: (sha1) => Promise.resolve(sha1 === lockAcquireScript.sha1 ? -1 : 2),
  eval: (lua) => Promise.resolve(lua === lockAcquireScript.lua ? -1 : 2),
  scriptThenWait: () => Promise.reject(new Error('not used by this probe')),
  info: () => Promise.resolve(''),
  refreshSlots: () => Promise.resolve(),
  slotOwner: () => undefined,
  isReplyError: () => false,
  droppedInFlight: () => false,
  watch: () => () => undefined,
  openSubscriber: () => {
    throw new Error('not used by this probe: nothing waits');
  },
};

async function connect(): Promise<Client> {
  const client = createClient({ url: server.url });
  client.on('error', () => undefined);
  return client.connect();
}

/** rxlock's lock scripts for `key` as `sendCommand` arguments, loaded: what `scripts` and `scripts+engine` send. */
async function scriptCommands(client: Client, key: string): Promise<{ acquire: string[]; release: string[] }> {
  const field = `${randomUUID()}:#1`;
  const command = async (lua: string, call: readonly (string | number)[]): Promise<string[]> => ['EVALSHA', await client.scriptLoad(lua), ...call.map(String)];
  return {
    acquire: await command(RXLOCK_LOCK_SCRIPTS.acquireLua, RXLOCK_LOCK_SCRIPTS.acquire(key, field)),
    release: await command(RXLOCK_LOCK_SCRIPTS.releaseLua, RXLOCK_LOCK_SCRIPTS.release(key, field)),
  };
}

const contenders: Record<string, (key: string) => Promise<CycleLoop>> = {
  floor: async (key) => {
    const client = await connect();
    const args = ['EVALSHA', await client.scriptLoad('return 1'), '1', key];
    return {
      cycle: async () => {
        await client.sendCommand(args);
        await client.sendCommand(args);
      },
      close: () => Promise.resolve(client.destroy()),
    };
  },
  scripts: async (key) => {
    const client = await connect();
    const { acquire, release } = await scriptCommands(client, key);
    return {
      cycle: async () => {
        await client.sendCommand(acquire);
        await client.sendCommand(release);
      },
      close: () => Promise.resolve(client.destroy()),
    };
  },
  bare: async (key) => {
    const client = await connect();
    const { acquire, release } = await scriptCommands(client, key);
    const held: BareLease[] = [];
    const take = (): Promise<BareLease> =>
      new Promise((resolve, reject) => {
        const sentAt = performance.now();
        client.sendCommand(acquire, RAW).then((reply) => {
          if ((reply as unknown) !== -1) {
            reject(new Error('the free lock was not granted'));
            return;
          }
          const lease = { key, deadline: sentAt + 30_000, at: performance.now(), index: -1 };
          lease.index = held.push(lease) - 1;
          resolve(lease);
        }, reject);
      });
    const give = (lease: BareLease): Promise<void> =>
      new Promise((resolve, reject) => {
        const releasedAt = performance.now();
        if (held.pop() !== lease || releasedAt > lease.deadline) {
          reject(new Error('the lease was not the one held'));
          return;
        }
        client.sendCommand(release, RAW).then(() => resolve(), reject);
      });
    return {
      cycle: async () => {
        await give(await take());
      },
      close: () => Promise.resolve(client.destroy()),
    };
  },
  'scripts+engine': async (key) => {
    const client = await connect();
    const { acquire, release } = await scriptCommands(client, key);
    const locks = rxlock.createLockClient({ store: driverStore(instantDriver) });
    return {
      cycle: async () => {
        const handle = await locks.acquire(key);
        await client.sendCommand(acquire);
        await handle.release();
        await client.sendCommand(release);
      },
      close: async () => {
        await locks.close();
        client.destroy();
      },
    };
  },
  rxlock: async (key) => {
    const client = await connect();
    const locks = rxlock.createLockClient({ redis: client });
    const cycle = async (): Promise<void> => {
      const handle = await locks.acquire(key);
      await handle.release();
    };
    await cycle();
    return {
      cycle,
      close: async () => {
        await locks.close();
        client.destroy();
      },
    };
  },
};

/** `PROBE_CONTENDERS=floor,rxlock`: only those (to profile one path at a time); by default all of them. */
const only = process.env['PROBE_CONTENDERS']?.split(',');
const unknown = only?.filter((name) => !(name in contenders)) ?? [];
if (unknown.length > 0) throw new Error(`PROBE_CONTENDERS: no contender ${unknown.join(', ')}; there are ${Object.keys(contenders).join(', ')}`);
const chosen = Object.entries(contenders).filter(([name]) => only === undefined || only.includes(name));

const server = await openServer(process.env['REDIS_URL']);
const admin = await connect();

/** Redis's CPU so far (user + system), in µs. */
async function redisCpuUs(): Promise<number> {
  const info = await admin.info('cpu');
  const seconds = (field: string): number => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6;
}

const rates = new Map<string, number[]>();
const clientCpu = new Map<string, number[]>();
const redisCpu = new Map<string, number[]>();
const push = (figures: Map<string, number[]>, name: string, value: number): void => {
  figures.set(name, [...(figures.get(name) ?? []), value]);
};

try {
  console.log(`${server.description}; ${String(WORKERS)} workers, ${String(ROUNDS)} interleaved rounds of ${String(ROUND_MS)} ms`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, open] of chosen) {
      const loops = await Promise.all(Array.from({ length: WORKERS }, (_, worker) => open(`${MARKER}:${name}:${String(worker)}`)));
      const redisBefore = await redisCpuUs();
      const { cycles, elapsedMs, cpuUs } = await runCycleWindow(loops, ROUND_MS);
      const redisUsed = (await redisCpuUs()) - redisBefore;
      push(rates, name, (cycles / elapsedMs) * 1_000);
      push(clientCpu, name, cpuUs / cycles);
      push(redisCpu, name, redisUsed / cycles);
      console.log(
        `round ${String(round + 1)} ${name.padEnd(14)} ${Math.round((cycles / elapsedMs) * 1_000)
          .toString()
          .padStart(6)} cycles/s, CPU per cycle: this process ${(cpuUs / cycles).toFixed(1)} µs, Redis ${(redisUsed / cycles).toFixed(1)} µs`,
      );
      await Promise.all(loops.map((loop) => loop.close()));
    }
  }
  const floorRates = rates.get('floor') ?? [];
  console.log('medians:');
  for (const [name] of chosen) {
    const ratios = (rates.get(name) ?? []).map((rate, round) => rate / (floorRates[round] ?? Number.NaN));
    const ratio = floorRates.length === 0 ? 'no floor in this run' : `${median(ratios).toFixed(2)} × the floor of its round`;
    console.log(
      `  ${name.padEnd(14)} ${Math.round(median(rates.get(name) ?? [])).toString()} cycles/s, ${ratio}; ` +
        `CPU per cycle: this process ${median(clientCpu.get(name) ?? []).toFixed(1)} µs, Redis ${median(redisCpu.get(name) ?? []).toFixed(1)} µs`,
    );
  }
} finally {
  admin.destroy();
  await server.deleteKeys(MARKER);
  await server.stop();
}
