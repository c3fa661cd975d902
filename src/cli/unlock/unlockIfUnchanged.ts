import type { Redis } from 'ioredis';
import { classifyRedisError } from '../../store/redis/classifyRedisError.js';
import type { Reply } from '../../store/Script.js';
import { CliError } from '../CliError.js';
import type { Connection } from '../connection/Connection.js';
import { withKeyNamed, type ForceUnlockPlan } from './forceUnlock.js';

/**
 * Runs a confirmed force-unlock only if the object is still what the prompt named. `recheck` reads it again
 * and throws when it changed. On one server the read and the unlock are one transaction (WATCH the keys the
 * prompt named, read, MULTI/EVAL/EXEC): a lock that changes hands after the read, as when the dead holder's
 * key expires and a waiter takes the lock, makes EXEC run nothing. ioredis's Cluster has no WATCH on a key's
 * node, so there the unlock follows the read, a round trip later.
 */
export async function unlockIfUnchanged(connection: Connection, name: string, plan: ForceUnlockPlan, recheck: () => Promise<void>): Promise<string> {
  const { redis } = connection;
  if (redis.isCluster) {
    await recheck();
    return plan.run(connection);
  }
  const server = redis as Redis;
  for (let tries = 1; tries <= KIND_TRIES; tries++) {
    await server.watch(...plan.watched);
    try {
      await recheck();
      // A server's clients announce with classic PUBLISH (SPUBLISH is for a cluster's sharded subscribers).
      const step = plan.step('publish');
      const replies = await server
        .multi()
        .eval(step.lua, step.keys.length, ...step.keys, ...step.args)
        .exec();
      if (replies === null) throw new CliError(`"${name}" changed while you were asked; nothing changed, run the command again`);
      const [error, reply] = replies[0] ?? [new Error('no reply to EXEC'), undefined];
      if (error !== null) throw withKeyNamed(classifyRedisError(error), name);
      const said = step.finish(reply as Reply);
      if (said !== undefined) return said;
    } finally {
      // EXEC ends the WATCH; this ends it when the read threw first. Its own failure would hide the error that got here.
      await server.unwatch().catch(() => undefined);
    }
  }
  throw new CliError(`"${name}" changed kind at every try to force-unlock it; nothing changed, run the command again`);
}

/** A lock's script that finds another kind changes nothing and names it: enough tries for a name that changes kind once or twice. */
const KIND_TRIES = 3;
