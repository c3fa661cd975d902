// A cron job that runs on one instance of three. Start this program three times (three terminals, three
// containers): each instance campaigns with `leader$`, one wins, and only the winner runs the job, every
// TICK_MS. When the leader stops, another instance takes over; a leader whose process dies is replaced within
// the watchdog timeout (5 s here). Each run marks itself running in Redis, so a run that overlapped one on
// another instance would be counted. Stopping lets the job in flight finish before stepping down: unsubscribing
// tears the schedule down at once, but cannot stop a promise that is already running.
//   REDIS_URL=redis://localhost:6379 INSTANCE=a node --import tsx examples/cron-leader.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { concatMap, filter, interval } from 'rxjs';
import { createLockClient } from 'rxlock';

const instance = process.env['INSTANCE'] ?? `pid-${process.pid}`;
const runForMs = Number(process.env['RUN_FOR_MS'] ?? 10_000);
const TICK_MS = 200;

const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://localhost:6379');
const locks = createLockClient({ redis, clientId: instance });

let runs = 0;
let overlaps = 0;
let stopping = false;
let inFlight: Promise<void> = Promise.resolve();

/** The job: 50 ms of work, marked in Redis while it runs. */
async function runJob(): Promise<void> {
  const free = await redis.set('cron-example:running', instance, 'PX', 5_000, 'NX');
  if (free === null) {
    overlaps++;
    console.log(`${instance}: OVERLAP with ${(await redis.get('cron-example:running')) ?? 'nobody'}`);
    return;
  }
  await sleep(50);
  await redis.del('cron-example:running');
  runs++;
  console.log(`${instance}: ran the job (${runs})`);
}

const subscription = locks
  .leader$(
    'cron-example',
    () => {
      console.log(`${instance}: leading`);
      return interval(TICK_MS).pipe(
        filter(() => !stopping),
        concatMap(() => (inFlight = runJob())),
      );
    },
    { watchdogTimeoutMs: 5_000 },
  )
  .subscribe({ error: (error: unknown) => console.error(`${instance}: leader$ stopped:`, error) });

await sleep(runForMs);
stopping = true;
await inFlight;
subscription.unsubscribe();
await locks.close();
await redis.quit();
console.log(`summary: ${instance} ran ${runs} jobs, ${overlaps} overlaps`);
