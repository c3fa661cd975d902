/**
 * What sending one EVALSHA costs the client (user CPU per call), through ioredis's `evalsha()` and through
 * the path rxlock's Redis store takes for a standalone client (`preparedEvalsha`: the arguments flat already,
 * so ioredis's `Array.prototype.flat` has nothing to do), with the three arguments of the bench's floor and
 * the ten of a lock acquire. 64 calls in flight on one connection keep the client busy; 7 interleaved rounds
 * of 50,000 calls each; medians. The keys arrays are frozen, as rxlock's lock keys are, so that
 * `preparedEvalsha` reuses their encoding (builds before 2026-11-26 encoded them every time; compare with
 * `RXLOCK_DIST`). Then, without any I/O, the CPU of building one lock acquire's command and encoding it for
 * the socket (its RESP string, flattened as a socket write does) both ways, in 7 interleaved rounds of 300,000
 * commands, each with its own field as a lock's are. Run after `npm run build`:
 * `node --import tsx bench/probes/commandCost.ts`.
 */
import { Command, Redis, type Command as CommandType } from 'ioredis';
import type * as PreparedEvalsha from '../../src/store/redis/preparedEvalsha.js';
import { median } from '../histogram.js';
import { dist } from '../rxlock.js';
import { openServer } from '../server.js';
import { probeSize } from './size.js';

const { preparedEvalsha } = (await import(`${dist}/store/redis/preparedEvalsha.js`)) as typeof PreparedEvalsha;

const ROUNDS = probeSize(7, 1);
const CALLS = probeSize(50_000, 500);
const IN_FLIGHT = 64;
const FIELD = 'c3a8e2b4-1f9d-4c1e-9a7b-0123456789ab:7f3e2a10-5b6c-4d7e-8f90-0123456789ab';

type Send = (sha1: string, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

const server = await openServer(process.env['REDIS_URL']);
const redis = server.connect();
try {
  const prepared = preparedEvalsha(redis);
  if (prepared === undefined) throw new Error('preparedEvalsha does not apply to this client');
  const sha1 = (await redis.script('LOAD', 'return 1')) as string;
  const shapes: Record<string, [readonly string[], readonly (string | number)[]]> = {
    '3 arguments (the floor)': [Object.freeze(['key']), []],
    '10 arguments (lock acquire)': [Object.freeze(['key', 'rxlock_waiters:{key}', 'rxlock_handoff:{key}']), [30_000, FIELD, 'new+d', 100]],
  };
  const paths: Record<string, Send> = {
    'ioredis evalsha()': (sha, keys, args) => redis.evalsha(sha, keys.length, ...keys, ...args),
    'rxlock preparedEvalsha': prepared,
  };
  const samples = new Map<string, number[]>();

  const timed = async (send: Send, keys: readonly string[], args: readonly (string | number)[]): Promise<number> => {
    let started = 0;
    const lane = async (): Promise<void> => {
      while (started < CALLS) {
        started++;
        await send(sha1, keys, args);
      }
    };
    const before = process.cpuUsage();
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    return process.cpuUsage(before).user / CALLS;
  };

  for (let round = 0; round < ROUNDS; round++) {
    for (const [shape, [keys, args]] of Object.entries(shapes)) {
      for (const [path, send] of Object.entries(paths)) {
        const label = `${shape}, ${path}`;
        const perCall = await timed(send, keys, args);
        samples.set(label, [...(samples.get(label) ?? []), perCall]);
      }
    }
  }
  console.log(`${server.description}; client user CPU per EVALSHA, medians of ${String(ROUNDS)} rounds of ${String(CALLS)} calls`);
  for (const [label, values] of samples) console.log(`${label.padEnd(56)} ${median(values).toFixed(2)} µs`);
  const encoding = encodingCost(sha1, shapes['10 arguments (lock acquire)']![0]);
  console.log(`CPU per lock acquire command built and encoded for the socket, no I/O, medians of ${String(ROUNDS)} rounds:`);
  for (const [label, values] of encoding) console.log(`${label.padEnd(56)} ${median(values).toFixed(3)} µs`);
} finally {
  redis.disconnect();
  await server.stop();
}

/** Builds and encodes lock acquire commands as ioredis's `evalsha()` and as `preparedEvalsha` do, on a client that never connects. */
function encodingCost(sha1: string, keys: readonly string[]): Map<string, number[]> {
  const COMMANDS = probeSize(300_000, 1_000);
  const idle = new Redis({ lazyConnect: true });
  let built: CommandType | undefined;
  idle.sendCommand = (command: CommandType) => {
    built = command;
    return Promise.resolve(undefined);
  };
  const prepared = preparedEvalsha(idle);
  if (prepared === undefined) throw new Error('preparedEvalsha does not apply to an idle client');
  const builders: Record<string, (field: string) => CommandType | undefined> = {
    "ioredis evalsha()'s command": (field) => new Command('evalsha', [sha1, keys.length, ...keys, 30_000, field, 'new+d', 100], { replyEncoding: 'utf8' }),
    "rxlock preparedEvalsha's command": (field) => {
      void prepared(sha1, keys, [30_000, field, 'new+d', 100]);
      return built;
    },
  };
  const samples = new Map<string, number[]>();
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, build] of Object.entries(builders)) {
      const before = process.cpuUsage();
      for (let i = 0; i < COMMANDS; i++) {
        const writable = build(`${FIELD}:#${i.toString(36)}`)?.toWritable(idle.stream) ?? '';
        bytes += Buffer.byteLength(writable);
      }
      const used = process.cpuUsage(before);
      samples.set(label, [...(samples.get(label) ?? []), (used.user + used.system) / COMMANDS]);
    }
  }
  if (bytes === 0) throw new Error('nothing was encoded');
  idle.disconnect();
  return samples;
}
