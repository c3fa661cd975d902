import type { Redis } from 'ioredis';
import type { RunScript } from '../../primitives/lock/forceUnlockAnyKind.js';
import { classifyRedisError } from '../../store/redis/classifyRedisError.js';
import type { Reply } from '../../store/Script.js';
import { CliError } from '../CliError.js';
import type { Connection } from '../connection/Connection.js';
import { runPlan, withKeyNamed, type ForceUnlockPlan } from './forceUnlock.js';

/**
 * Runs a confirmed force-unlock only if the object is still what the prompt named. `recheck` reads it again
 * and throws when it changed. On one server each script runs in one transaction with that read (WATCH the keys
 * the prompt named, read, MULTI/EVAL/EXEC): a lock that changes hands after the read, as when the dead holder's
 * key expires and a waiter takes the lock, makes EXEC run nothing. ioredis's Cluster has no WATCH on a key's
 * node, so there the unlock follows the read, a round trip later.
 */
export async function unlockIfUnchanged(connection: Connection, name: string, plan: ForceUnlockPlan, recheck: () => Promise<void>): Promise<string> {
  const { redis } = connection;
  if (redis.isCluster) {
    await recheck();
    return runPlan(connection, name, plan);
  }
  const server = redis as Redis;
  const afterRecheck: RunScript = async (script, keys, args) => {
    await server.watch(...plan.watched);
    try {
      await recheck();
      const replies = await server
        .multi()
        .eval(script.lua, keys.length, ...keys, ...args)
        .exec();
      if (replies === null) throw new CliError(`"${name}" changed while you were asked; nothing changed, run the command again`);
      const [error, reply] = replies[0] ?? [new Error('no reply to EXEC'), undefined];
      if (error !== null) throw classifyRedisError(error);
      return script.parse(reply as Reply);
    } finally {
      // EXEC ends the WATCH; this ends it when the read threw first. Its own failure would hide the error that got here.
      await server.unwatch().catch(() => undefined);
    }
  };
  try {
    // A server's clients announce with classic PUBLISH (SPUBLISH is for a cluster's sharded subscribers).
    return await plan.run(afterRecheck, 'publish');
  } catch (error) {
    throw withKeyNamed(error, name);
  }
}
