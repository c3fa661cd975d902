// A program that used rxlock and is done: it quit its own Redis client but never closed its lock clients.
// Prints one JSON line (what keeps it alive after the quit), then returns; the test measures whether it exits.
// Usage: node --import tsx finishedProgram.ts <ioredis|node-redis> <port>
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { createLockClient, type RedisLike } from '../../src/index.js';

const [library, port] = process.argv.slice(2);
const redis: RedisLike & { close(): Promise<unknown> } =
  library === 'node-redis'
    ? await createClient({ socket: { host: '127.0.0.1', port: Number(port) } }).connect()
    : Object.assign(new Redis({ host: '127.0.0.1', port: Number(port) }), {
        close(this: Redis) {
          return this.quit();
        },
      });
// Two lock clients on the one Redis client: the second waits, so that its pub/sub connection is open.
const [first, second] = [createLockClient({ redis }), createLockClient({ redis })];
const held = await first.acquire('finished');
const waiting = second.acquire('finished');
await new Promise((resolve) => setTimeout(resolve, 100));
await held.release();
await (await waiting).release();
const socketsBefore = process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;
await redis.close();
await new Promise((resolve) => setTimeout(resolve, 200));
const resources = process.getActiveResourcesInfo();
const sockets = resources.filter((resource) => resource === 'TCPSocketWrap').length;
const timers = resources.filter((resource) => resource === 'Timeout').length;
if (process.argv[4] === 'close') await Promise.all([first.close(), second.close()]);
const timersAfterClose = process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
process.stdout.write(`${JSON.stringify({ socketsBefore, sockets, timers, timersAfterClose })}\n`);
