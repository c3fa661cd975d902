import type { Redis } from 'ioredis';
import type { LockWorker } from './Contender.js';

/** A lock's acquire and release scripts, and the calls of them an owner `field` makes on `key`. */
export interface LockScripts {
  readonly acquireLua: string;
  readonly releaseLua: string;
  /** EVALSHA's numKeys, keys and arguments. */
  readonly acquire: (key: string, field: string) => [numKeys: number, ...keysAndArgs: (string | number)[]];
  readonly release: (key: string, field: string) => [numKeys: number, ...keysAndArgs: (string | number)[]];
  /** Whether an acquire's reply is a grant. */
  readonly granted: (reply: unknown) => boolean;
}

/** A worker that sends `scripts` straight through ioredis (EVALSHA, loaded first): no engine, no waiting. */
export async function scriptsWorker(redis: Redis, scripts: LockScripts, key: string, field: string): Promise<LockWorker> {
  const acquireSha = (await redis.script('LOAD', scripts.acquireLua)) as string;
  const releaseSha = (await redis.script('LOAD', scripts.releaseLua)) as string;
  const acquireCall = scripts.acquire(key, field);
  const releaseCall = scripts.release(key, field);
  return {
    acquire: async () => scripts.granted(await redis.evalsha(acquireSha, ...acquireCall)),
    release: async () => {
      await redis.evalsha(releaseSha, ...releaseCall);
    },
    close: () => Promise.resolve(),
  };
}
