// An HTTP handler that serialises updates per account. POST /accounts/<id>/deposit?amount=<n> reads the balance,
// works a little, and writes the new balance back: without a lock, concurrent deposits would overwrite each
// other. `withLock(`account:${id}`)` makes the deposits to one account take turns, across every process that
// runs this server, while deposits to different accounts run side by side. The program starts the server on a
// free port, sends itself DEPOSITS concurrent deposits of 1 to account 42 over HTTP, prints how many were
// accepted and the balance, and exits. Start two at once against one Redis: no deposit is lost.
//   REDIS_URL=redis://localhost:6379 DEPOSITS=50 node --import tsx examples/http-account-updates.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createLockClient, LockTimeoutError } from 'rxlock';

const deposits = Number(process.env['DEPOSITS'] ?? 50);
const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://localhost:6379');
const locks = createLockClient({ redis });
const balanceKey = (account: string): string => `account-example:${account}:balance`;

/** Adds `amount` to the account's balance under the account's lock; resolves with the new balance. */
function deposit(account: string, amount: number): Promise<number> {
  return locks.withLock(
    `account:${account}`,
    async (lease) => {
      const balance = Number((await redis.get(balanceKey(account))) ?? 0);
      await sleep(2, undefined, { signal: lease.signal }); // the work between reading and writing
      if (!lease.held) throw new Error(`lost the lock of account ${account} before writing`);
      await redis.set(balanceKey(account), balance + amount);
      return balance + amount;
    },
    { waitMs: 10_000 },
  );
}

const server = createServer((request, response) => {
  const match = /^\/accounts\/([\w-]+)\/deposit\?amount=(\d+)$/.exec(request.url ?? '');
  if (request.method !== 'POST' || match === null) {
    response.writeHead(404).end();
    return;
  }
  deposit(match[1] ?? '', Number(match[2])).then(
    (balance) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ balance })),
    (error: unknown) => response.writeHead(error instanceof LockTimeoutError ? 503 : 500).end(String(error)),
  );
});
await new Promise<void>((resolve) => server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const statuses = await Promise.all(
  Array.from({ length: deposits }, async () => (await fetch(`http://127.0.0.1:${port}/accounts/42/deposit?amount=1`, { method: 'POST' })).status),
);
console.log(`deposits: ${statuses.filter((status) => status === 200).length} of ${deposits} accepted`);
console.log(`balance of account 42: ${(await redis.get(balanceKey('42'))) ?? 0}`);

server.close();
await locks.close();
await redis.quit();
