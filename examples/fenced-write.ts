// A fenced write: a store that checks fencing tokens refuses a holder whose lease ran out. Holder A takes the
// lock with `fencing: true` and a short lease, then stalls past it (a long GC pause, a slow disk). Holder B,
// another client, gets the lock with a larger token and writes. When A wakes up it still tries to write: the
// store, which remembers the largest token it accepted, refuses it. The lock alone could not have stopped A:
// only the resource can. The store here is a Redis hash written by a script that compares tokens; a SQL table
// does the same with `UPDATE … WHERE fence < $token`.
//   REDIS_URL=redis://localhost:6379 node --import tsx examples/fenced-write.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createLockClient } from 'rxlock';

const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://localhost:6379');

/** The resource: accepts a write only if its token is larger than every token it accepted before. */
const FENCED_SET = `
local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
if tonumber(ARGV[2]) <= fence then return 0 end
redis.call('HSET', KEYS[1], 'value', ARGV[1], 'fence', ARGV[2])
return 1`;
async function write(value: string, token: number | undefined): Promise<boolean> {
  if (token === undefined) throw new Error('a fenced write needs a token');
  return (await redis.eval(FENCED_SET, 1, 'fenced-example:invoice:42', value, token)) === 1;
}

const clientA = createLockClient({ redis, clientId: 'holder-a' });
const clientB = createLockClient({ redis, clientId: 'holder-b' });

const a = await clientA.acquire('invoice-42', { fencing: true, leaseMs: 300 });
console.log(`A holds the lock with token ${a.token}`);
await sleep(500); // A stalls past its lease
console.log(`A still holds it: ${a.held}`);

await clientB.withLock(
  'invoice-42',
  async (b) => console.log(`B holds the lock with token ${b.token}; its write accepted: ${await write('paid by B', b.token)}`),
  { fencing: true },
);

console.log(`A wakes up and writes; accepted: ${await write('paid by A', a.token)}`);
await a.release().catch((error: unknown) => console.log(`A's release: ${String(error)}`));
console.log(`the invoice says: ${(await redis.hget('fenced-example:invoice:42', 'value')) ?? 'nothing'}`);

await clientA.close();
await clientB.close();
await redis.quit();
