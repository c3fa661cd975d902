import type { Redis } from 'ioredis';
import { CommandTally } from '../commandTally.js';
import type { Contender, LockWorker } from '../contenders/Contender.js';
import { latencyHistogram, recordMs, type Histogram } from '../histogram.js';
import { HolderBook } from '../holders.js';
import type { BenchServer } from '../server.js';
import { sleep } from '../sleep.js';

/** One timed window: `workers` workers of one contender loop acquire → hold → release. */
export interface WindowPlan {
  readonly server: BenchServer;
  readonly contender: Contender;
  readonly workers: number;
  readonly keyOf: (worker: number) => string;
  /** How long a holder keeps the lock (setTimeout); 0: release right after the acquire resolved. */
  readonly holdMs: number;
  readonly windowMs: number;
  /** How long the workers may take to finish their last cycle after the window closed. */
  readonly drainMs: number;
}

/** What one window measured. Times are in ms, latencies in µs histograms. */
export interface WindowResult {
  readonly elapsedMs: number;
  readonly acquisitions: number;
  readonly perWorker: number[];
  /** Acquisitions that followed an earlier one on the same key in this window. */
  readonly successions: number;
  /** Successions by a different worker than the previous holder. */
  readonly ownerChanges: number;
  /** From calling acquire to holding, every acquisition. */
  readonly acquireLatency: Histogram;
  /** From calling acquire to holding, for acquisitions that changed owner, plus the waits still open when the window closed. */
  readonly newOwnerWait: Histogram;
  /** From the previous holder's release call to the next owner holding. */
  readonly switchGap: Histogram;
  readonly commands: number;
  /** SUBSCRIBE, UNSUBSCRIBE and their sharded forms, included in `commands`. */
  readonly subscriptionCommands: number;
  /** CPU time of this process (all workers, the bench's own bookkeeping included) while the window was open, in µs. */
  readonly clientCpuUs: number;
  /** CPU time of redis-server while the window was open (INFO cpu), in µs; includes other clients on a shared REDIS_URL. */
  readonly redisCpuUs: number;
  readonly overlaps: number;
  /** The library gave up by its own timeout (the worker asked again). */
  readonly timeouts: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  /** Workers still busy when the drain time ran out. */
  readonly stuck: number;
}

interface KeyState {
  lastOwner: number | undefined;
  releasedAt: number | undefined;
}

export async function runWindow(plan: WindowPlan): Promise<WindowResult> {
  const { server, contender, workers: count, keyOf, holdMs } = plan;
  const tally = new CommandTally();
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const redis = tally.attach(server.connect());
    connections.push(redis);
    return redis;
  };
  const workers: LockWorker[] = [];
  for (let index = 0; index < count; index++) workers.push(await contender.open({ key: keyOf(index), connect }));
  // Warm-up: every worker connects, loads its scripts and takes the lock once. A failure shows in `firstError`.
  let warmUpError: string | undefined;
  await Promise.all(
    workers.map(async (worker) => {
      try {
        while (!(await worker.acquire()));
        await worker.release();
      } catch (error) {
        warmUpError ??= `warm-up: ${String(error)}`;
      }
    }),
  );

  const holders = new HolderBook();
  const keys = new Map<string, KeyState>();
  const waitingSince: (number | undefined)[] = Array.from({ length: count }, () => undefined);
  const perWorker = Array.from({ length: count }, () => 0);
  const acquireLatency = latencyHistogram();
  const newOwnerWait = latencyHistogram();
  const switchGap = latencyHistogram();
  let acquisitions = 0;
  let successions = 0;
  let ownerChanges = 0;
  let timeouts = 0;
  let errors = 0;
  let firstError: string | undefined = warmUpError;
  let open = true;
  // Read through a function: the loops must see the value at the time of reading, not a narrowed one.
  const isOpen = (): boolean => open;

  const record = (index: number, key: string, startedAt: number, at: number): void => {
    acquisitions++;
    perWorker[index]!++;
    recordMs(acquireLatency, at - startedAt);
    let state = keys.get(key);
    if (state === undefined) keys.set(key, (state = { lastOwner: undefined, releasedAt: undefined }));
    if (state.lastOwner !== undefined) {
      successions++;
      if (state.lastOwner !== index) {
        ownerChanges++;
        recordMs(newOwnerWait, at - startedAt);
        if (state.releasedAt !== undefined) recordMs(switchGap, at - state.releasedAt);
      }
    }
    state.lastOwner = index;
    state.releasedAt = undefined;
  };

  const loop = async (index: number): Promise<void> => {
    const worker = workers[index]!;
    const key = keyOf(index);
    while (isOpen()) {
      const startedAt = performance.now();
      waitingSince[index] = startedAt;
      try {
        while (!(await worker.acquire())) if (isOpen()) timeouts++;
      } catch (error) {
        waitingSince[index] = undefined;
        if (isOpen()) errors++;
        firstError ??= String(error);
        await sleep(10);
        continue;
      }
      waitingSince[index] = undefined;
      const at = performance.now();
      holders.enter(key);
      const counted = isOpen();
      if (counted) record(index, key, startedAt, at);
      if (holdMs > 0) await sleep(holdMs);
      holders.leave(key);
      const state = keys.get(key);
      if (counted && state !== undefined) state.releasedAt = performance.now();
      try {
        await worker.release();
      } catch (error) {
        if (counted) errors++;
        firstError ??= String(error);
      }
    }
  };

  const redisCpuStart = await redisCpuSeconds(server);
  const cpuStart = process.cpuUsage();
  const windowStart = performance.now();
  tally.start();
  const loops = workers.map((_, index) => loop(index));
  await sleep(plan.windowMs);
  open = false;
  tally.stop();
  const closedAt = performance.now();
  const cpu = process.cpuUsage(cpuStart);
  const redisCpuUs = ((await redisCpuSeconds(server)) - redisCpuStart) * 1e6;
  // A waiter still waiting when the window closes has waited at least this long: count it, or starvation would hide.
  waitingSince.forEach((since, index) => {
    if (since === undefined) return;
    if (keys.get(keyOf(index))?.lastOwner !== index) recordMs(newOwnerWait, closedAt - since);
  });

  let stuck = 0;
  const drained = Promise.all(loops).then(() => true);
  if (!(await Promise.race([drained, sleep(plan.drainMs).then(() => false)]))) {
    stuck = waitingSince.filter((since) => since !== undefined).length;
  }
  await Promise.all(workers.map((worker) => worker.close().catch(() => undefined)));
  for (const redis of connections) redis.disconnect();

  return {
    elapsedMs: closedAt - windowStart,
    acquisitions,
    perWorker,
    successions,
    ownerChanges,
    acquireLatency,
    newOwnerWait,
    switchGap,
    commands: tally.total,
    subscriptionCommands: tally.count('subscribe') + tally.count('unsubscribe') + tally.count('ssubscribe') + tally.count('sunsubscribe'),
    clientCpuUs: cpu.user + cpu.system,
    redisCpuUs,
    overlaps: holders.overlaps,
    timeouts,
    errors,
    firstError,
    stuck,
  };
}

async function redisCpuSeconds(server: BenchServer): Promise<number> {
  const info = await server.admin.info('cpu');
  const read = (field: string): number => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return read('used_cpu_user') + read('used_cpu_sys');
}
