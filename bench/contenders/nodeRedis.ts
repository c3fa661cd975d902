import { randomUUID } from 'node:crypto';
import type { LeaseHandle } from '../../src/index.js';
import { rxlock } from '../rxlock.js';
import type { Contender, WorkerContext } from './Contender.js';
import { RXLOCK_LOCK_SCRIPTS } from './rxlockScripts.js';

const TRIVIAL = 'return 1';

function nodeRedisOf(context: WorkerContext): NonNullable<WorkerContext['connectNodeRedis']> {
  if (context.connectNodeRedis === undefined) throw new Error('this harness offers no node-redis connection');
  return context.connectNodeRedis;
}

/** The floor measured through node-redis: one EVALSHA of `return 1` to "acquire", one to "release", as `floor` does through ioredis. */
export const floorNodeRedis: Contender = {
  id: 'floor-node-redis',
  label: 'floor (node-redis)',
  settings:
    'node-redis 5 (`createClient`), `sendCommand([EVALSHA, sha, 1, key])` of `return 1` to acquire and again to release; the script is loaded before the window. Not a lock: the round trip any lock over node-redis pays at least.',
  excludes: false,
  unavailable: () => Promise.resolve(undefined),
  async open(context) {
    const client = await nodeRedisOf(context)();
    const sha = await client.scriptLoad(TRIVIAL);
    const args = ['EVALSHA', sha, '1', context.key];
    return {
      acquire: async () => {
        await client.sendCommand(args);
        return true;
      },
      release: async () => {
        await client.sendCommand(args);
      },
      close: () => Promise.resolve(),
    };
  },
};

/** `rxlock-scripts` through node-redis: splits the node-redis path's cycle into the scripts' share and the engine's. */
export const rxlockScriptsNodeRedis: Contender = {
  id: 'rxlock-scripts-node-redis',
  label: 'rxlock scripts, no engine (node-redis)',
  settings:
    "node-redis 5 (`createClient`), rxlock's lock acquire and release scripts sent with `sendCommand([EVALSHA, …])`, the keys and arguments as `rxlock-scripts`; loaded before the window. Not a lock users would write; it shows how much of the node-redis path's cycle is its scripts. Uncontended only.",
  excludes: false,
  unavailable: () => Promise.resolve(undefined),
  async open(context) {
    const client = await nodeRedisOf(context)();
    const field = `${randomUUID()}:#1`;
    const command = async (lua: string, call: readonly (string | number)[]): Promise<string[]> => [
      'EVALSHA',
      await client.scriptLoad(lua),
      ...call.map(String),
    ];
    const acquire = await command(RXLOCK_LOCK_SCRIPTS.acquireLua, RXLOCK_LOCK_SCRIPTS.acquire(context.key, field));
    const release = await command(RXLOCK_LOCK_SCRIPTS.releaseLua, RXLOCK_LOCK_SCRIPTS.release(context.key, field));
    return {
      acquire: async () => RXLOCK_LOCK_SCRIPTS.granted(await client.sendCommand(acquire)),
      release: async () => {
        await client.sendCommand(release);
      },
      close: () => Promise.resolve(),
    };
  },
};

/** rxlock's plain lock over node-redis, as `rxlock` is over ioredis. */
export const rxlockNodeRedis: Contender = {
  id: 'rxlock-node-redis',
  label: 'rxlock lock (node-redis)',
  settings:
    'rxlock (dist/) over node-redis 5: one `createLockClient({ redis })` per worker on a connected `createClient()` (its command connection plus the pub/sub connection it duplicates), defaults as `rxlock`. `const handle = await client.acquire(key)`, `await handle.release()`.',
  excludes: true,
  unavailable: () => Promise.resolve(undefined),
  async open(context) {
    const client = rxlock.createLockClient({ redis: await nodeRedisOf(context)() });
    let handle: LeaseHandle | undefined;
    return {
      acquire: async () => {
        handle = await client.acquire(context.key);
        return true;
      },
      release: async () => {
        const held = handle;
        handle = undefined;
        await held?.release();
      },
      close: () => client.close(),
    };
  },
};
