import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { checkHistory, FencedResource, runSeed, type CheckReport, type SectionRecord } from '../support/checker.js';
import { closeLockConnections } from '../support/clientLibrary.js';
import { activeTimers, eventually, sleep } from '../support/leaks.js';
import { startRedis, type RedisServer } from '../support/redisServer.js';
import { spawnWorker, type Worker, type WorkerStats } from '../support/workerProcess.js';

/** What every fault test runs against: the lock server (faulted) and the fenced resource (never faulted). */
export interface Rig {
  readonly seed: number;
  readonly locks: RedisServer;
  readonly admin: Redis;
  readonly resourceServer: RedisServer;
  readonly resource: FencedResource;
}

/**
 * Starts the rig before the file's tests and stops it after; after each test, checks that nothing was
 * left on the lock server but fencing counters (which outlive locks by design), no subscription and no
 * timer of this process, and clears both servers.
 * The seed is printed with every failure so the run can be repeated with `RXLOCK_SEED=<seed>`.
 */
export function useRig(args: readonly string[] = []): () => Rig {
  let rig: Rig | undefined;
  let timersBefore = 0;
  beforeAll(async () => {
    const seed = runSeed();
    const [locks, resourceServer] = await Promise.all([startRedis(args), startRedis()]);
    rig = { seed, locks, admin: locks.client({ retryStrategy: () => 10 }), resourceServer, resource: new FencedResource(resourceServer.port) };
    await rig.admin.ping();
    timersBefore = activeTimers();
  });
  afterAll(async () => {
    closeLockConnections();
    rig?.resource.close();
    await Promise.all([rig?.locks.stop(), rig?.resourceServer.stop()]);
  });
  afterEach(async (context) => {
    if (rig === undefined) return;
    if (context.task.result?.state === 'fail') console.info(`${context.task.name}: replay with RXLOCK_SEED=${rig.seed}`);
    try {
      const leftovers = async () => (await rig!.admin.keys('*')).filter((key) => !key.startsWith('redisson_lock_token:'));
      await eventually(async () => (await leftovers()).length === 0, 2_000);
      // A crashed process's waiter entries are not a leak while their TTL runs (up to the lock TTL + 5.2 s):
      // wait for them to expire by themselves, then nothing may be left.
      const ttls = await Promise.all((await leftovers()).map((key) => rig!.admin.pttl(key)));
      if (ttls.length > 0 && ttls.every((ttl) => ttl > 0 && ttl <= 10_000)) await sleep(Math.max(...ttls) + 200);
      const left = await leftovers();
      // Name what is left, with its contents and TTL, so a leak can be traced to its owner.
      const described = await Promise.all(
        left.map(async (key) => `${key} (${await rig!.admin.type(key)}, pttl ${await rig!.admin.pttl(key)}): ${JSON.stringify(await dump(rig!.admin, key))}`),
      );
      expect(described).toEqual([]);
      expect(await eventually(async () => (await rig!.admin.pubsub('CHANNELS')).length === 0, 1_000)).toBe(true);
      // This process's clients, proxies and timers are gone too (the workers prove it by exiting on their own).
      expect(await eventually(() => activeTimers() <= timersBefore, 2_000)).toBe(true);
    } finally {
      // Also after a failed check: what one test left behind must not fail the ones after it.
      await rig.admin.flushall();
      await rig.resource.clear();
    }
  });
  return () => {
    if (rig === undefined) throw new Error('the rig is not running');
    return rig;
  };
}

async function dump(redis: Redis, key: string): Promise<unknown> {
  switch (await redis.type(key)) {
    case 'hash':
      return redis.hgetall(key);
    case 'zset':
      return redis.zrange(key, 0, -1, 'WITHSCORES');
    case 'string':
      return redis.get(key);
    default:
      return null;
  }
}

/** Prints one figure line for the README: `FIGURE <fault>: <text>`. */
export function figure(fault: string, text: string): void {
  console.info(`FIGURE ${fault}: ${text}`);
}

/** Sorted copy's smallest, median and largest value, formatted. */
export function spread(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `min ${at(0)} ms, median ${at(0.5)} ms, max ${at(1)} ms (n=${values.length})`;
}

/** A run of loop-mode workers against the rig, with a nemesis acting while they work. */
export interface WorkloadOptions {
  readonly workers: number;
  readonly clientsPerWorker: number;
  readonly locks: readonly string[];
  readonly watchdogTimeoutMs: number;
  readonly workMs: readonly [number, number];
  readonly longWork?: { readonly chance: number; readonly ms: number };
  /** The workers' own ports (e.g. proxies), by worker index; the lock server's port otherwise. */
  readonly portOf?: (index: number) => number;
  /** Runs while the workers work; the workers are stopped when it resolves. */
  nemesis(workers: readonly Worker[]): Promise<void>;
}

export interface WorkloadResult {
  readonly sections: SectionRecord[];
  readonly stats: WorkerStats[];
  readonly report: CheckReport;
  /** Errors other than a lost lock that reached the workers' callers. */
  readonly errors: string[];
}

export async function runWorkload(rig: Rig, options: WorkloadOptions): Promise<WorkloadResult> {
  const workers = await Promise.all(
    Array.from({ length: options.workers }, (_, i) =>
      spawnWorker({
        name: `w${i + 1}`,
        mode: 'loop',
        redisPort: options.portOf?.(i) ?? rig.locks.port,
        resourcePort: rig.resourceServer.port,
        seed: rig.seed + i + 1,
        clients: options.clientsPerWorker,
        locks: options.locks,
        watchdogTimeoutMs: options.watchdogTimeoutMs,
        workMs: options.workMs,
        ...(options.longWork === undefined ? {} : { longWork: options.longWork }),
      }),
    ),
  );
  await options.nemesis(workers);
  const stats = await Promise.all(workers.map((worker) => worker.stop()));
  const sections = workers.flatMap((worker) => worker.sections);
  const errors = workers.flatMap((worker) =>
    worker.messages.flatMap((message) => (message.type === 'error' ? [`${message.holder} ${message.lock}: ${message.error}`] : [])),
  );
  return { sections, stats, errors, report: checkHistory(sections, await rig.resource.writes()) };
}

/** Adds up one event type over the workers. */
export function eventCount(stats: readonly WorkerStats[], type: string): number {
  return stats.reduce((sum, s) => sum + (s.events[type] ?? 0), 0);
}
