import { Cluster, type Command, type Redis, type RedisOptions } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { Redis as Valkey } from 'iovalkey';
import { afterAll, describe, expect, it } from 'vitest';
import { preparedEvalsha } from '../src/store/redis/preparedEvalsha.js';
import { redisServerForSuite } from './support/suiteRedis.js';

const SCRIPT = "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], redis.call('incr', KEYS[1])}";

/** The EVALSHA fast path must send byte for byte what ioredis's `evalsha()` sends, and be used only where it can. */
describe('preparedEvalsha', () => {
  const server = redisServerForSuite();
  /** Clients that `server.stop()` does not close (of other classes). */
  const others: { disconnect(): void }[] = [];
  const connect = (options?: RedisOptions): Redis => server.client(options);
  afterAll(() => {
    for (const client of others) client.disconnect();
  });

  it('sends the same command as evalsha() and resolves with the same reply', async () => {
    const redis = connect();
    const sent: { args: unknown[]; bytes: string | Buffer }[] = [];
    const sendCommand = redis.sendCommand.bind(redis);
    redis.sendCommand = (command: Command, stream) => {
      sent.push({ args: [...command.args], bytes: command.toWritable({}) });
      return sendCommand(command, stream);
    };
    const sha1 = (await redis.script('LOAD', SCRIPT)) as string;
    const evalsha = preparedEvalsha(redis);
    expect(evalsha).toBeTypeOf('function');
    sent.length = 0;

    const viaIoredis = await redis.evalsha(sha1, 2, 'prepared-a', '{prepared-a}:b', 30_000, 'field', 7.5);
    const viaPrepared = await evalsha?.(sha1, ['prepared-a', '{prepared-a}:b'], [30_000, 'field', 7.5]);

    expect(viaIoredis).toEqual(['prepared-a', '{prepared-a}:b', '30000', 'field', '7.5', 1]);
    expect(viaPrepared).toEqual(['prepared-a', '{prepared-a}:b', '30000', 'field', '7.5', 2]);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    await redis.del('prepared-a');
  });

  it('sends the same bytes for a frozen keys array, whose encoding it reuses, with keys and arguments beyond ASCII', async () => {
    const redis = connect();
    const sent: (string | Buffer)[] = [];
    const sendCommand = redis.sendCommand.bind(redis);
    redis.sendCommand = (command: Command, stream) => {
      sent.push(command.toWritable({}));
      return sendCommand(command, stream);
    };
    const sha1 = (await redis.script('LOAD', SCRIPT)) as string;
    const evalsha = preparedEvalsha(redis);
    const keys = Object.freeze(['prepared-clé-😀', '{prepared-clé-😀}:b']);
    sent.length = 0;

    const replies = [
      await redis.evalsha(sha1, 2, ...keys, 30_000, 'fiéld', 'ø'),
      await evalsha?.(sha1, keys, [30_000, 'fiéld', 'ø']),
      await evalsha?.(sha1, keys, [30_000, 'fiéld', 'ø']),
      await evalsha?.(sha1, keys, [15_000, 'other', '']),
    ];

    expect(replies.map((reply) => (reply as unknown[]).at(-1))).toEqual([1, 2, 3, 4]);
    expect(replies[3]).toEqual([...keys, '15000', 'other', '', 4]);
    expect(sent).toHaveLength(4);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[2]).toEqual(sent[0]);
    await redis.del(keys[0]!);
  });

  it('is used on ioredis 6 and iovalkey clients too, with their own Command, sending the same bytes', async () => {
    for (const client of [new Redis6({ port: server.port, host: '127.0.0.1' }), new Valkey({ port: server.port, host: '127.0.0.1' })]) {
      others.push(client);
      const sent: (string | Buffer)[] = [];
      const sendCommand = client.sendCommand.bind(client) as (command: unknown) => unknown;
      Object.assign(client, {
        sendCommand: (command: { toWritable(socket: object): string | Buffer }) => {
          sent.push(command.toWritable({}));
          return sendCommand(command);
        },
      });
      const sha1 = (await client.script('LOAD', SCRIPT)) as string;
      const evalsha = preparedEvalsha(client);
      expect(evalsha).toBeTypeOf('function');
      sent.length = 0;
      const viaClient = await client.evalsha(sha1, 2, 'prepared-c', '{prepared-c}:b', 1, 'x', 'y');
      const viaPrepared = await evalsha?.(sha1, ['prepared-c', '{prepared-c}:b'], [1, 'x', 'y']);
      expect([(viaClient as unknown[]).at(-1), (viaPrepared as unknown[]).at(-1)]).toEqual([1, 2]);
      expect(sent[1]).toEqual(sent[0]);
      await client.del('prepared-c');
    }
  });

  it('rejects with the server error, as evalsha() does', async () => {
    const evalsha = preparedEvalsha(connect());
    await expect(evalsha?.('0'.repeat(40), ['prepared-b'], [])).rejects.toThrow(/^NOSCRIPT/);
  });

  it('leaves to evalsha() what it would send differently or cannot reach', () => {
    expect(preparedEvalsha(connect({ keyPrefix: 'app:' }))).toBeUndefined();
    expect(preparedEvalsha(connect({ enableAutoPipelining: true }))).toBeUndefined();
    expect(preparedEvalsha(connect({ showFriendlyErrorStack: true }))).toBeUndefined();
    const cluster = new Cluster([{ host: '127.0.0.1', port: server.port }], { lazyConnect: true });
    others.push(cluster);
    expect(preparedEvalsha(cluster)).toBeUndefined();
    const redis = connect();
    const traced = new Proxy(redis, {
      get: (target, property): unknown => (property === 'evalsha' ? () => Promise.resolve('traced') : Reflect.get(target, property, target)),
    });
    expect(preparedEvalsha(traced)).toBeUndefined();
    const replaced = connect();
    Object.assign(replaced, { evalsha: () => Promise.resolve('replaced') });
    expect(preparedEvalsha(replaced)).toBeUndefined();
    const wrapper = { evalsha: redis.evalsha.bind(redis), isCluster: false, options: {}, sendCommand: redis.sendCommand.bind(redis) };
    expect(preparedEvalsha(wrapper)).toBeUndefined();
  });
});
