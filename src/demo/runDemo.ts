import { Redis } from 'ioredis';
import picocolors from 'picocolors';
import { catchError, defer, EMPTY, finalize, ignoreElements, merge, repeat, takeUntil, tap, timer, type Observable } from 'rxjs';
import { createLockClient, type LockClient } from '../client/createLockClient.js';
import type { LockClientOptions } from '../client/LockClientOptions.js';
import type { RedisLike } from '../store/redis/RedisLike.js';
import type { Lease } from '../engine/Lease.js';
import { LockLostError } from '../errors/LockLostError.js';
import { createMemoryStore } from '../store/memory/MemoryStore.js';
import { DemoState, nameOf } from './DemoState.js';
import type { DemoHeader, DemoView } from './DemoView.js';
import { LiveBoard } from './LiveBoard.js';
import { startLocalRedis } from './localRedis.js';
import { PlainLog } from './PlainLog.js';
import { isLiveTerminal, wantsColor } from './terminal.js';

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
  /** Where the demo is shown. @default process.stdout */
  out?: NodeJS.WritableStream | undefined;
  /**
   * A board redrawn in place (true) or a plain log, one line per event (false).
   * @default true when `out` is a terminal, unless the CI variable is set or TERM is dumb
   */
  live?: boolean | undefined;
}

/** One worker's connection when the caller opens them. */
export interface DemoConnection {
  readonly redis: RedisLike;
  close(): Promise<void>;
}

/** What the demo ends with. */
export interface DemoSummary {
  readonly backend: 'redis' | 'memory';
  readonly acquisitions: number;
  /** Acquisitions that took the lock from another worker's hold. */
  readonly handOffs: number;
  /** Times a worker's work started while another's still ran: must be 0. */
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
 * The main job: several workers contend for one lock through `withLock$`, shown as a board redrawn in place
 * (or a plain log). One worker now and then runs past a short fixed lease to show a lost lock tearing its
 * work down. Ends by itself after `durationMs`, with a summary.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const { durationMs = 6_000, workers = 4, url = process.env['REDIS_URL'], lockName = 'demo:orders', out = process.stdout } = options;
  const live = options.live ?? isLiveTerminal(out);
  const c = picocolors.createColors(wantsColor(out, live));
  const backend = options.connect === undefined ? await openBackend(url) : callerBackend(options.connect, options.connectionLabel ?? 'Redis');
  const clients = (await Promise.all(Array.from({ length: workers }, () => backend.open()))).map((clientOptions) => createLockClient(clientOptions));
  const overrunner = workers - 1;
  const header: DemoHeader = {
    title: `rxlock demo: ${workers} workers contend for the lock "${lockName}" for ${(durationMs / 1000).toFixed(1)} s`,
    backend: backend.description,
    overrunner: nameOf(overrunner),
  };
  const state = new DemoState(workers, () => performance.now());
  const view: DemoView = live ? new LiveBoard(out as NodeJS.WriteStream, state, header, durationMs, c) : new PlainLog(out, state, header, c);
  const stop$ = timer(durationMs);

  const worker = (client: LockClient, index: number): Observable<unknown> => {
    let cycle = 0;
    const oneCycle$ = defer(() => {
      cycle++;
      const overrun = index === overrunner && cycle % 4 === 0;
      const holdMs = overrun ? 400 : 40 + Math.floor(Math.random() * 160);
      const requestedAt = performance.now();
      state.waiting(index);
      const work = (lease: Lease) => {
        view.event(
          state.acquired(index, lease.token, performance.now() - requestedAt, overrun ? `works ${holdMs} ms on a 250 ms lease` : `works ${holdMs} ms`),
        );
        state.working(index, holdMs);
        return timer(holdMs).pipe(finalize(() => state.workEnded(index)));
      };
      return client.withLock$(lockName, work, { fencing: true, ...(overrun ? { leaseMs: 250 } : {}) });
    }).pipe(
      ignoreElements(),
      tap({
        error: (error: unknown) => {
          if (error instanceof LockLostError) view.event(state.lost(index, describeLoss(error)));
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
  state.stopped();
  const tally = state.tally();
  view.finish(tally, state.elapsed());
  return {
    backend: backend.kind,
    acquisitions: tally.acquisitions,
    handOffs: tally.handOffs,
    overlaps: tally.overlaps,
    tokensIncreasing: tally.tokensIncreasing,
    lost: tally.lost,
  };
}

/** A lost lease's reason in a few words. */
function describeLoss(error: LockLostError): string {
  return error.reason === 'expired' ? 'its fixed lease ran out' : error.reason;
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
