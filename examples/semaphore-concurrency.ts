// A semaphore that limits concurrency across processes: at most PERMITS renders run at once, however many
// processes run this program. Each process starts TASKS renders at once; each render holds a permit of the
// leased semaphore `renderers-example` while it runs (`withLease` gives it back when the render settles). The
// permits are leased: if a process dies while rendering, its permits come back within the watchdog timeout.
// Each render counts itself in Redis while it runs, so the program can print the most that ran at once.
//   REDIS_URL=redis://localhost:6379 node --import tsx examples/semaphore-concurrency.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createLockClient, withLease } from 'rxlock';

const instance = process.env['INSTANCE'] ?? `pid-${process.pid}`;
const tasks = Number(process.env['TASKS'] ?? 6);
const permits = 3;

const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://localhost:6379');
const locks = createLockClient({ redis, clientId: instance });
const renderers = locks.leasedSemaphore('renderers-example');
await renderers.trySetPermits(permits); // only the first process sets the count

let mostAtOnce = 0;

/** One render: 100 ms of work, counted in `renderers-example:busy` while it runs. */
async function render(task: number): Promise<void> {
  const busy = await redis.incr('renderers-example:busy');
  mostAtOnce = Math.max(mostAtOnce, busy);
  await sleep(100);
  await redis.decr('renderers-example:busy');
  console.log(`${instance}: rendered task ${task} (${busy} running at its start)`);
}

await Promise.all(Array.from({ length: tasks }, (_, task) => withLease(renderers.acquire$(1, { waitMs: 30_000 }), () => render(task + 1))));

await locks.close();
await redis.quit();
console.log(`summary: ${instance} rendered ${tasks} tasks, at most ${mostAtOnce} running at once across all processes (limit ${permits})`);
