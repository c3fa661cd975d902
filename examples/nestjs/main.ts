/**
 * Starts two instances of the example service (service.ts) against REDIS_URL, checks what rxlock/nestjs
 * promises, prints each check, stops them and removes its data. Run it after `npm run build` (the service
 * imports rxlock/nestjs by package name, which resolves to dist/):
 *
 *   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/nestjs/main.ts
 *
 * It exits with 1 if a check fails. It touches only keys under a prefix of its own.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

const redisUrl = process.env['REDIS_URL'];
if (redisUrl === undefined) {
  console.error('examples/nestjs: set REDIS_URL (e.g. redis://127.0.0.1:6379)');
  process.exit(2);
}
const dataPrefix = `rxlock-example:${randomUUID()}`;
const account = randomUUID();

interface Instance {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
}

function start(name: string): Promise<Instance> {
  const child = fork(fileURLToPath(new URL('service.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, INSTANCE: name, DATA_PREFIX: dataPrefix, TSX_TSCONFIG_PATH: fileURLToPath(new URL('tsconfig.run.json', import.meta.url)) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`${name} exited before listening (${String(code ?? signal)})`)));
    child.once('message', (message: { port: number }) => resolve({ name, child, url: `http://127.0.0.1:${message.port}` }));
  });
}

function stop(instance: Instance): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    instance.child.removeAllListeners('exit');
    instance.child.once('exit', (code, signal) => resolve({ code, signal }));
    instance.child.kill('SIGTERM');
  });
}

let failed = 0;
function check(ok: boolean, what: string): void {
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

const redis = new Redis(redisUrl);
const [a, b] = await Promise.all([start('a'), start('b')]);
const instances = [a, b];
/** Alternates between the two instances. */
const nth = (i: number): Instance => (i % 2 === 0 ? a : b);
try {
  console.log(`two instances listening: ${instances.map((instance) => instance.url).join(', ')}`);

  // 1. Ten charges of one account at once, alternating between the instances: the lock lets one run at a time.
  const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => fetch(`${nth(i).url}/accounts/${account}/charge?cents=100`, { method: 'POST' })));
  const statuses = responses.map((response) => response.status);
  const accepted = statuses.filter((status) => status === 201).length;
  const refused = responses.filter((response) => response.status === 409);
  const bodies = (await Promise.all(refused.map((response) => response.json()))) as { code?: string }[];
  check(
    accepted >= 1 && accepted + refused.length === 10,
    `10 concurrent charges: ${accepted} answered 201, ${refused.length} answered 409 (${statuses.join(' ')})`,
  );
  check(refused.length > 0 && bodies.every((body) => body.code === 'LOCK_TIMEOUT'), `the 409s say why: ${JSON.stringify(bodies[0] ?? {})}`);
  const { balance } = (await (await fetch(`${a.url}/accounts/${account}`)).json()) as { balance: number };
  check(balance === accepted * 100, `the balance is ${balance}: every accepted charge counted, none lost`);

  // 2. Charges one after another all go through, on either instance.
  let sequential = 0;
  for (let i = 0; i < 4; i++) sequential += (await fetch(`${nth(i).url}/accounts/${account}/charge?cents=1`, { method: 'POST' })).status === 201 ? 1 : 0;
  check(sequential === 4, `4 charges one after another: ${sequential} answered 201`);

  // 3. The statement job fires every second on both instances, and runs on one.
  await sleep(3_200);
  const runs = await redis.lrange(`${dataPrefix}:statements`, 0, -1);
  const runners = new Set(runs);
  check(runs.length >= 2 && runners.size === 1, `the every-second job ran ${runs.length} times, all on instance ${[...runners].join(', ')}`);

  // 4. Stopping the leader gracefully hands the job over to the other instance at once.
  const leader = instances.find((instance) => runners.has(instance.name));
  const other = leader === a ? b : a;
  if (leader !== undefined) {
    const before = await redis.llen(`${dataPrefix}:statements`);
    const exit = await stop(leader);
    check(exit.signal === 'SIGTERM' || exit.code === 0, `instance ${leader.name} stopped on SIGTERM (${String(exit.signal ?? exit.code)})`);
    await sleep(2_200);
    const after = (await redis.lrange(`${dataPrefix}:statements`, before, -1)).filter((name) => name === other.name);
    check(after.length >= 1, `instance ${other.name} took the job over: it ran ${after.length} times in the next 2 s`);
  }
} finally {
  for (const instance of instances) if (instance.child.exitCode === null && instance.child.signalCode === null) await stop(instance);
  const locks = await redis.keys('example:*');
  check(locks.length === 0, `no lock left in Redis (${locks.length} example:* keys)`);
  const ours = await redis.keys(`${dataPrefix}:*`);
  if (ours.length > 0) await redis.del(...ours);
  await redis.quit();
}
console.log(failed === 0 ? 'all checks passed' : `${failed} check(s) failed`);
process.exitCode = failed === 0 ? 0 : 1;
