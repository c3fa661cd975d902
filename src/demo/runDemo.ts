import { Redis } from 'ioredis';
import { catchError, defer, EMPTY, finalize, ignoreElements, merge, repeat, takeUntil, tap, timer, type Observable } from 'rxjs';
import { createLockClient, type LockClient } from '../client/createLockClient.js';
import type { LockClientOptions } from '../client/LockClientOptions.js';
import type { RedisLike } from '../store/redis/RedisLike.js';
import type { Lease } from '../engine/Lease.js';
import { LockLostError } from '../errors/LockLostError.js';
import { createMemoryStore } from '../store/memory/MemoryStore.js';
import { startLocalRedis } from './localRedis.js';
import { Timeline } from './Timeline.js';

export interface DemoOptions {
  /** How long the workers contend. @default 6000 */
  durationMs?: number | undefined;
  /** How many workers (each its own client and connections, as separate processes would be). @default 4 */
  workers?: number | undefined;
  /** Redis to use. @default process.env.REDIS_URL, else a redis-server started for the demo, else the memory store */
  url?: string | undefined;
  /** Opens one worker's Redis connection instead of `url` (the command line passes its connection flags this way). */
  connect?: (() => Promise<DemoConnection>) | undefined;
  /** Names `connect`'s Redis in the timeline's header. @default 'Redis' */
  connectionLabel?: string | undefined;
  /** The lock they contend for. @default 'demo:orders' */
  lockName?: string | undefined;
  /** Where the timeline goes. @default process.stdout */
  out?: NodeJS.WritableStream | undefined;
}

/** One worker's connection when the caller opens them. */
export interface DemoConnection {
  readonly redis: RedisLike;
  close(): Promise<void>;
}

export interface DemoSummary {
  readonly backend: 'redis' | 'memory';
  readonly acquisitions: number;
  readonly overlaps: number;
  readonly tokensIncreasing: boolean;
  readonly lost: number;
}

interface Backend {
  readonly kind: 'redis' | 'memory';
  readonly description: string;
  /** One worker's client options, on its own connection. */
  open(): Promise<LockClientOptions>;
  stop(): Promise<void>;
}

/**
 * The main job: several workers contend for one lock through `withLock$`, each acquisition printed on a
 * live timeline. One worker now and then runs past a short fixed lease to show a lost lock tearing its
 * work down. Ends by itself after `durationMs`.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const { durationMs = 6_000, workers = 4, url = process.env['REDIS_URL'], lockName = 'demo:orders', out = process.stdout } = options;
  const backend = options.connect === undefined ? await openBackend(url) : callerBackend(options.connect, options.connectionLabel ?? 'Redis');
  const timeline = new Timeline(out, workers);
  timeline.header(`rxlock demo: ${workers} workers contend for the lock "${lockName}" for ${(durationMs / 1000).toFixed(1)} s`, backend.description);
  const clients = (await Promise.all(Array.from({ length: workers }, () => backend.open()))).map((clientOptions) => createLockClient(clientOptions));
  let holders = 0;
  let overlaps = 0;
  let acquisitions = 0;
  let lost = 0;
  let lastToken = 0;
  let tokensIncreasing = true;
  const stop$ = timer(durationMs);

  const worker = (client: LockClient, index: number): Observable<unknown> => {
    let cycle = 0;
    const oneCycle$ = defer(() => {
      cycle++;
      const overrun = index === workers - 1 && cycle % 4 === 0;
      const holdMs = overrun ? 400 : 40 + Math.floor(Math.random() * 160);
      const requestedAt = performance.now();
      timeline.waiting(index);
      const work = (lease: Lease) => {
        if (++holders > 1) overlaps++;
        acquisitions++;
        if (lease.token !== undefined) {
          tokensIncreasing &&= lease.token > lastToken;
          lastToken = lease.token;
        }
        timeline.acquired(index, lease.token, performance.now() - requestedAt, overrun ? `works ${holdMs} ms on a 250 ms lease` : `works ${holdMs} ms`);
        return timer(holdMs).pipe(
          finalize(() => {
            holders--;
            timeline.releasing(index);
          }),
        );
      };
      return client.withLock$(lockName, work, { fencing: true, ...(overrun ? { leaseMs: 250 } : {}) });
    }).pipe(
      ignoreElements(),
      tap({
        complete: () => timeline.released(index),
        error: (error: unknown) => {
          if (error instanceof LockLostError) {
            lost++;
            timeline.lost(index, error.reason);
          }
        },
      }),
      // A lost lease ends this cycle, not the worker.
      catchError(() => EMPTY),
    );
    return oneCycle$.pipe(repeat({ delay: () => timer(Math.floor(Math.random() * 60)) }), takeUntil(stop$));
  };

  await new Promise<void>((resolve) => merge(...clients.map(worker)).subscribe({ complete: resolve }));
  await Promise.all(clients.map((client) => client.close()));
  await backend.stop();
  const summary: DemoSummary = { backend: backend.kind, acquisitions, overlaps, tokensIncreasing, lost };
  timeline.summary(summary);
  return summary;
}

function callerBackend(connect: () => Promise<DemoConnection>, label: string): Backend {
  const connections: DemoConnection[] = [];
  return {
    kind: 'redis',
    description: `Redis: ${label}`,
    open: async () => {
      const connection = await connect();
      connections.push(connection);
      return { redis: connection.redis };
    },
    stop: async () => {
      await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    },
  };
}

async function openBackend(url: string | undefined): Promise<Backend> {
  const redisBackend = (target: string, description: string, stop: () => Promise<void>): Backend => {
    const connections: Redis[] = [];
    return {
      kind: 'redis',
      description,
      open: () => {
        const redis = new Redis(target, { maxRetriesPerRequest: 2 });
        connections.push(redis);
        return Promise.resolve({ redis });
      },
      stop: async () => {
        await Promise.all(connections.map((redis) => redis.quit().catch(() => undefined)));
        await stop();
      },
    };
  };
  if (url !== undefined && url !== '') return redisBackend(url, `Redis: ${url} (from REDIS_URL)`, () => Promise.resolve());
  const local = await startLocalRedis();
  if (local !== undefined)
    return redisBackend(local.url, `Redis: ${local.url} (a redis-server started for this demo; set REDIS_URL to use yours)`, () => local.stop());
  const store = createMemoryStore();
  return {
    kind: 'memory',
    description: 'Notice: no REDIS_URL and no redis-server on PATH, so this runs on the in-memory store (rxlock/testing), in this process only.',
    open: () => Promise.resolve({ store }),
    stop: () => Promise.resolve(),
  };
}
