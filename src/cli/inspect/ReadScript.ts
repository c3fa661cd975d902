import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Connection } from '../connection/Connection.js';

/** A read-only Lua script the command line runs by its SHA1. */
export interface ReadScript {
  readonly lua: string;
  readonly sha1: string;
}

export function readScript(lua: string): ReadScript {
  const body = lua.trim();
  return { lua: body, sha1: createHash('sha1').update(body).digest('hex') };
}

/** Loads the scripts on every master first, so that a burst of EVALSHA does not turn into a burst of NOSCRIPT. */
export async function loadScripts(connection: Connection, scripts: readonly ReadScript[]): Promise<void> {
  await Promise.all(connection.masters().flatMap((master) => scripts.map((script) => master.script('LOAD', script.lua))));
}

/** EVALSHA, falling back to EVAL when the server lost its script cache (restart, failover, SCRIPT FLUSH). */
export async function runReadScript(redis: Redis | Cluster, script: ReadScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha1, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script.lua, keys.length, ...keys, ...args);
  }
}
