/** Sends one EVALSHA and resolves with its reply, as `redis.evalsha(sha1, keys.length, ...keys, ...args)` does. */
export type EvalshaSender = (sha1: string, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

const NO_ARGS: string[] = [];
const UTF8 = { replyEncoding: 'utf8' } as const;

/**
 * The RESP encoding of a frozen keys array (numkeys, then each key), computed once: rxlock sends the same
 * frozen array of a lock's keys with every command on that lock (see `lockKeys`), and encoding it was most
 * of the string work of building a command.
 */
const encodedKeys = new WeakMap<readonly string[], string>();

/** The RESP encoding of each script's SHA1, shared by all its commands. */
const encodedShas = new Map<string, string>();

function encodedSha(sha1: string): string {
  let encoded = encodedShas.get(sha1);
  if (encoded === undefined) encodedShas.set(sha1, (encoded = encode(sha1)));
  return encoded;
}

/** By length: an array of that many strings, which a command's argument array is copied from (see `FlatEvalsha`). Never handed out. */
const templates: string[][] = [];

function encode(arg: string): string {
  return `$${String(Buffer.byteLength(arg))}\r\n${arg}\r\n`;
}

function encodeKeys(keys: readonly string[]): string {
  let encoded = encode(String(keys.length));
  for (const key of keys) encoded += encode(key);
  return encoded;
}

/**
 * An EVALSHA command whose arguments are flat strings already: ioredis's constructor has nothing left to
 * flatten. Its wire form is ioredis's own, built from the cached encodings of the script's SHA1 and (when
 * frozen) the keys, so that only the arguments are encoded per command.
 */
function flatEvalshaOf(Command: CommandClass): FlatEvalshaClass {
  return class FlatEvalsha extends Command {
    /** The encoding of the SHA1 and of the keys when they are frozen: shared strings, never one per command. */
    readonly #sha: string;
    readonly #keys: string | undefined;
    readonly #firstArg: number;

    constructor(sha1: string, keys: readonly string[], args: readonly (string | number)[]) {
      super('evalsha', NO_ARGS, UTF8);
      // Copied from a template by `slice`, not built by an array literal: V8 tracks an array literal's
      // allocation site, and when the first commands (queued while the connection opens) outlive a scavenge it
      // may pretenure every later array of that site, each of which then keeps its strings alive until a full
      // collection. Not by `concat` either, which runs in C++ and costs more than `slice` and in-bounds stores.
      const keyCount = keys.length;
      const length = 2 + keyCount + args.length;
      const flat = (templates[length] ??= new Array<string>(length).fill('')).slice();
      flat[0] = sha1;
      flat[1] = String(keyCount);
      let at = 2;
      for (let i = 0; i < keyCount; i++) flat[at++] = keys[i] as string;
      for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        flat[at++] = typeof arg === 'string' ? arg : String(arg);
      }
      this.#firstArg = 2 + keyCount;
      this.args = flat;
      this.#sha = encodedSha(sha1);
      if (Object.isFrozen(keys)) {
        let encoded = encodedKeys.get(keys);
        if (encoded === undefined) encodedKeys.set(keys, (encoded = encodeKeys(keys)));
        this.#keys = encoded;
      }
    }

    override toWritable(): string {
      const { args } = this;
      // Unfrozen keys (a renewal batch's hundreds) are encoded only here, so that a command in flight holds no copy.
      let writable = `*${String(args.length + 1)}\r\n$7\r\nevalsha\r\n${this.#sha}${this.#keys ?? encodeKeys(args.slice(2, this.#firstArg) as string[])}`;
      for (let i = this.#firstArg; i < args.length; i++) writable += encode(args[i] as string);
      return writable;
    }
  };
}

/** ioredis's `Command` (or iovalkey's), as much of it as rxlock uses. */
interface CommandInstance {
  args: unknown[];
  readonly promise: Promise<unknown>;
  toWritable(socket?: object): string | Buffer;
}
type CommandClass = new (name: string, args: unknown[], options: typeof UTF8) => CommandInstance;
type FlatEvalshaClass = new (sha1: string, keys: readonly string[], args: readonly (string | number)[]) => CommandInstance;

/** Per ioredis copy (its `evalsha` method): the flat command, or null when it would not build what `evalsha()` builds. */
const flatByEvalsha = new WeakMap<object, FlatEvalshaClass | null>();

/**
 * EVALSHA through ioredis's `sendCommand` with its arguments already flat, for a standalone client (`Redis`,
 * also under Sentinel; ioredis 5 or 6, or iovalkey) with default command options. ioredis's own `evalsha()`
 * passes every command's arguments through `Array.prototype.flat`, which on Node 20 costs more than the rest of
 * the engine's work for that command (`bench/probes/commandCost.ts` measures it). Everything else stays ioredis's own: the command object, its queueing, timeouts, reconnection and
 * reply decoding. The `Command` class is the client's own (its class's static `Command`): rxlock imports no
 * client library.
 *
 * Returns undefined, and the caller uses `evalsha()`, for a Cluster, a client whose `evalsha()` is not its
 * class's own, a client with a `keyPrefix`, friendly error stacks or auto-pipelining (which `evalsha()` applies
 * and `sendCommand` would skip), anything that is not an ioredis client, and an ioredis whose `Command` does
 * not build the same command this way.
 */
export function preparedEvalsha(redis: object): EvalshaSender | undefined {
  const client = redis as {
    isCluster?: unknown;
    evalsha?: unknown;
    sendCommand?: (command: CommandInstance) => unknown;
    options?: Record<string, unknown>;
  };
  const { evalsha } = client;
  // A client whose evalsha() was wrapped or replaced (instrumentation, a Proxy) must keep seeing every call.
  if (client.isCluster !== false || typeof evalsha !== 'function' || (Object.getPrototypeOf(redis) as { evalsha?: unknown } | null)?.evalsha !== evalsha) {
    return undefined;
  }
  if (typeof client.sendCommand !== 'function') return undefined;
  const Flat = flatEvalshaFor(evalsha);
  if (Flat === null) return undefined;
  const { keyPrefix, showFriendlyErrorStack, enableAutoPipelining } = client.options ?? {};
  if (Boolean(keyPrefix) || showFriendlyErrorStack === true || enableAutoPipelining === true) return undefined;
  return (sha1, keys, args) => {
    const command = new Flat(sha1, keys, args);
    // Called on the client each time, as ioredis's own methods do, so that a wrapper installed later sees every command.
    void (client.sendCommand as (command: CommandInstance) => unknown)(command);
    return command.promise;
  };
}

function flatEvalshaFor(evalsha: object): FlatEvalshaClass | null {
  let Flat = flatByEvalsha.get(evalsha);
  if (Flat === undefined) {
    const Command = commandClassOf(evalsha);
    Flat = Command === undefined ? null : flatEvalshaOf(Command);
    if (Command !== undefined && Flat !== null && !buildsTheSame(Command, Flat)) Flat = null;
    flatByEvalsha.set(evalsha, Flat);
  }
  return Flat;
}

/**
 * The `Command` class of the ioredis copy that `evalsha` belongs to, without importing ioredis: the class of the
 * command it builds, called on a stand-in that keeps the command instead of sending it. (`Redis.Command` cannot
 * be reached from a client: ioredis mixes EventEmitter into its prototype, `constructor` included.)
 */
function commandClassOf(evalsha: object): CommandClass | undefined {
  let built: unknown;
  const standIn = {
    options: {},
    sendCommand: (command: unknown) => {
      built = command;
      return Promise.resolve();
    },
  };
  try {
    (evalsha as (this: object, ...args: unknown[]) => unknown).call(standIn, '0'.repeat(40), 0);
  } catch {
    return undefined;
  }
  const Class = typeof built === 'object' && built !== null ? (Object.getPrototypeOf(built) as { constructor?: unknown }).constructor : undefined;
  return typeof Class === 'function' ? (Class as CommandClass) : undefined;
}

/** Whether this ioredis builds from flat arguments the command its `evalsha()` builds (checked once per copy), cached keys or not. */
function buildsTheSame(Command: CommandClass, Flat: FlatEvalshaClass): boolean {
  try {
    const sha1 = '0123456789abcdef0123456789abcdef01234567';
    const args = [30_000, 'fiéld'] as const;
    const frozen = Object.freeze(['a', 'b']);
    // Unfrozen, then frozen twice: the second time its encoding comes from the cache.
    return [['a', 'b'], frozen, frozen].every((keys) => {
      const expected = new Command('evalsha', [sha1, keys.length, ...keys, ...args], UTF8);
      const actual = new Flat(sha1, keys, args);
      return (
        actual.args.length === expected.args.length &&
        actual.args.every((arg, index) => arg === expected.args[index]) &&
        actual.toWritable() === expected.toWritable({})
      );
    });
  } catch {
    return false;
  }
}
