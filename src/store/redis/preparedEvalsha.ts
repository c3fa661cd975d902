import { Command, Redis } from 'ioredis';

/** Sends one EVALSHA and resolves with its reply, as `redis.evalsha(sha1, keys.length, ...keys, ...args)` does. */
export type EvalshaSender = (sha1: string, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

const NO_ARGS: string[] = [];
const UTF8 = { replyEncoding: 'utf8' } as const;

/** An EVALSHA command whose arguments are flat strings already: ioredis's constructor has nothing left to flatten. */
class FlatEvalsha extends Command {
  constructor(args: string[]) {
    super('evalsha', NO_ARGS, UTF8);
    this.args = args;
  }
}

/**
 * EVALSHA through ioredis's `sendCommand` with its arguments already flat, for a standalone client (`Redis`,
 * also under Sentinel) of the ioredis that rxlock resolves, with default command options. ioredis's own
 * `evalsha()` passes every command's arguments through `Array.prototype.flat`, which on Node 20 is slow: about
 * 1 µs for three arguments and 2.4 µs for the ten of a lock script, more than the rest of the engine's work for
 * that command. Everything else stays ioredis's own: the command object, its queueing, timeouts, reconnection
 * and reply decoding.
 *
 * Returns undefined, and the caller uses `evalsha()`, for a Cluster, a client of another ioredis copy or
 * version, a client whose `evalsha()` is not ioredis's own, a client with a `keyPrefix`, friendly error
 * stacks or auto-pipelining (which `evalsha()` applies and `sendCommand` would skip), anything that is not an
 * ioredis client, and an ioredis whose `Command` no longer builds the same command this way.
 */
export function preparedEvalsha(redis: object): EvalshaSender | undefined {
  // A client whose evalsha() was wrapped or replaced (instrumentation, a Proxy) must keep seeing every call.
  if (!(redis instanceof Redis) || redis.evalsha !== Redis.prototype.evalsha || !BUILDS_THE_SAME) return undefined;
  const { keyPrefix, showFriendlyErrorStack, enableAutoPipelining } = redis.options;
  if (Boolean(keyPrefix) || showFriendlyErrorStack === true || enableAutoPipelining === true) return undefined;
  return (sha1, keys, args) => {
    const command = new FlatEvalsha(flatArgs(sha1, keys, args));
    // Called on the client each time, as ioredis's own methods do, so that a wrapper installed later sees every command.
    void redis.sendCommand(command);
    return command.promise;
  };
}

function flatArgs(sha1: string, keys: readonly string[], args: readonly (string | number)[]): string[] {
  const flat = [sha1, String(keys.length)];
  for (const key of keys) flat.push(key);
  for (const arg of args) flat.push(typeof arg === 'string' ? arg : String(arg));
  return flat;
}

/** Whether this ioredis builds from flat arguments the command its `evalsha()` builds (checked once, at load). */
function buildsTheSame(): boolean {
  try {
    const [sha1, keys, args] = ['0123456789abcdef0123456789abcdef01234567', ['a', 'b'], [30_000, 'field']] as const;
    const expected = new Command('evalsha', [sha1, keys.length, ...keys, ...args], UTF8);
    const actual = new FlatEvalsha(flatArgs(sha1, keys, args));
    return (
      actual.args.length === expected.args.length &&
      actual.args.every((arg, index) => arg === expected.args[index]) &&
      actual.toWritable({}) === expected.toWritable({})
    );
  } catch {
    return false;
  }
}

const BUILDS_THE_SAME = buildsTheSame();
