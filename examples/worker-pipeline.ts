// A worker pipeline with one active consumer. Several workers run this program; the one that holds the
// `queue-example:consumer` lock consumes the job queue, the others wait as stand-bys. The consumer is
// `lock$(…).pipe(switchMap(consume))`: it runs exactly as long as the lock is held. If the lock is lost
// (Redis unreachable for longer than the lease, a force-unlock), the stream errors with `LockLostError`,
// `switchMap` tears the consumer down, and `retry` campaigns again after a pause; any other error stops the
// worker. Before each job the consumer checks `lease.held`, the exact test that the lease is still valid.
// The first worker to start queues JOBS jobs; each worker prints what it processed.
//   REDIS_URL=redis://localhost:6379 WORKER=a node --import tsx examples/worker-pipeline.ts
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { concatMap, EMPTY, from, retry, switchMap, throwError, timer, type Observable } from 'rxjs';
import { createLockClient, LockLostError, type Lease } from 'rxlock';

const worker = process.env['WORKER'] ?? `pid-${process.pid}`;
const jobs = Number(process.env['JOBS'] ?? 40);
const runForMs = Number(process.env['RUN_FOR_MS'] ?? 5_000);

const redis = new Redis(process.env['REDIS_URL'] ?? 'redis://localhost:6379');
const locks = createLockClient({ redis, clientId: worker });

if ((await redis.set('queue-example:seeded', '1', 'NX')) === 'OK') {
  await redis.rpush('queue-example:jobs', ...Array.from({ length: jobs }, (_, index) => `job-${index + 1}`));
  console.log(`${worker}: queued ${jobs} jobs`);
}

let processed = 0;
let duplicates = 0;

/** Processes one job: counted in Redis, so that a job processed twice shows. */
async function processJob(job: string): Promise<void> {
  await sleep(5);
  if ((await redis.incr(`queue-example:done:${job}`)) > 1) duplicates++;
  processed++;
}

/** Takes jobs from the queue every 20 ms while the lease is held; never completes by itself. */
function consume(lease: Lease): Observable<void> {
  console.log(`${worker}: consuming`);
  return timer(0, 20).pipe(
    concatMap(() => (lease.held ? from(redis.lpop('queue-example:jobs')) : EMPTY)),
    concatMap((job) => (job === null ? EMPTY : from(processJob(job)))),
  );
}

const subscription = locks
  .lock$('queue-example:consumer')
  .pipe(
    switchMap(consume),
    retry({
      delay: (error: unknown) => {
        if (!(error instanceof LockLostError)) return throwError(() => error);
        console.log(`${worker}: lost the consumer lock (${error.reason}); campaigning again`);
        return timer(1_000);
      },
    }),
  )
  .subscribe({ error: (error: unknown) => console.error(`${worker}: stopped:`, error) });

await sleep(runForMs);
subscription.unsubscribe();
await locks.close();
await redis.quit();
console.log(`summary: ${worker} processed ${processed} jobs, ${duplicates} twice`);
