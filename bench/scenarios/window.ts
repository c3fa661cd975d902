import type { Redis } from 'ioredis';
import { createClient, type RedisClientType } from 'redis';
import { CommandTally } from '../commandTally.js';
import type { Contender, LockWorker } from '../contenders/Contender.js';
import { latencyHistogram, recordMs, type Histogram } from '../histogram.js';
import { HolderBook } from '../holders.js';
import { infoNumber } from '../redisInfo.js';
import type { BenchServer } from '../server.js';
import { settlesWithin, sleep } from '../sleep.js';

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
  /** How long each counted hold (`setTimeout(holdMs)`) took as timed: a stall of the process shows here first. Empty with hold 0. */
  readonly holds: Histogram;
  /** Of those holds, how many ended before `holdMs`: the timer fired early (bench/probes/holdTimer.ts looks into why). */
  readonly shortHolds: number;
  /** Cycles (acquire → hold → release) that started while the window was open and ran to their end. */
  readonly cycles: number;
  /** Commands the workers' connections sent during those cycles. */
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

/**
 * The workers loop this long before the window opens (half the window at most), so that the window sees
 * them in their steady state: not the burst of first attempts (and subscriptions) of all workers starting at
 * once, which a window that starts the workers counts and a service that runs for hours does not see.
 * Work in flight at the window's start and at its end then balances out.
 */
const LEAD_IN_MS = 500;

interface KeyState {
  lastOwner: number | undefined;
  releasedAt: number | undefined;
}

export async function runWindow(plan: WindowPlan): Promise<WindowResult> {
  const { server, contender, workers: count, keyOf, holdMs } = plan;
  // One tally per worker (its connections and those it duplicates), so that each cycle's commands are its own.
  const tallies = Array.from({ length: count }, () => new CommandTally());
  const connections: Redis[] = [];
  const connectFor = (index: number) => (): Redis => {
    const redis = tallies[index]!.attach(server.connect());
    connections.push(redis);
    return redis;
  };
  const nodeRedisConnections: RedisClientType[] = [];
  const connectNodeRedisFor = (index: number) => async (): Promise<RedisClientType> => {
    const client = createClient({ url: server.url }) as RedisClientType;
    // Connection errors are reported by the operations that fail, as for the ioredis connections.
    client.on('error', () => undefined);
    nodeRedisConnections.push(client);
    return tallies[index]!.attachNodeRedis(await client.connect());
  };
  const workers: LockWorker[] = [];
  for (let index = 0; index < count; index++)
    workers.push(await contender.open({ key: keyOf(index), connect: connectFor(index), connectNodeRedis: connectNodeRedisFor(index) }));
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
  const holds = latencyHistogram();
  let shortHolds = 0;
  let acquisitions = 0;
  let cycles = 0;
  let cycleCommands = 0;
  let cycleSubscriptionCommands = 0;
  let successions = 0;
  let ownerChanges = 0;
  let timeouts = 0;
  let errors = 0;
  let firstError: string | undefined = warmUpError;
  let running = true;
  let open = false;
  // Read through functions: the loops must see the values at the time of reading, not narrowed ones.
  const isRunning = (): boolean => running;
  const isOpen = (): boolean => open;

  // Who held each key last is followed from the lead-in on; only acquisitions inside the window are counted.
  const record = (index: number, key: string, startedAt: number, at: number, counted: boolean): void => {
    let state = keys.get(key);
    if (state === undefined) keys.set(key, (state = { lastOwner: undefined, releasedAt: undefined }));
    if (counted) {
      acquisitions++;
      perWorker[index]!++;
      recordMs(acquireLatency, at - startedAt);
    }
    if (counted && state.lastOwner !== undefined) {
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
    const tally = tallies[index]!;
    while (isRunning()) {
      const inWindow = isOpen();
      const sentBefore = tally.total;
      const subscriptionsBefore = subscriptionCommands(tally);
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
      record(index, key, startedAt, at, counted);
      if (holdMs > 0) await sleep(holdMs);
      holders.leave(key);
      const releasedAt = performance.now();
      if (counted && holdMs > 0) {
        recordMs(holds, releasedAt - at);
        if (releasedAt - at < holdMs) shortHolds++;
      }
      const state = keys.get(key);
      if (state !== undefined) state.releasedAt = releasedAt;
      try {
        await worker.release();
      } catch (error) {
        if (counted) errors++;
        firstError ??= String(error);
      }
      if (inWindow) {
        cycles++;
        cycleCommands += tally.total - sentBefore;
        cycleSubscriptionCommands += subscriptionCommands(tally) - subscriptionsBefore;
      }
    }
  };

  for (const tally of tallies) tally.start();
  const loops = workers.map((_, index) => loop(index));
  await sleep(Math.min(LEAD_IN_MS, plan.windowMs / 2));
  const redisCpuStart = await redisCpuSeconds(server);
  const cpuStart = process.cpuUsage();
  const windowStart = performance.now();
  open = true;
  await sleep(plan.windowMs);
  open = false;
  running = false;
  const closedAt = performance.now();
  const cpu = process.cpuUsage(cpuStart);
  const redisCpuUs = ((await redisCpuSeconds(server)) - redisCpuStart) * 1e6;
  // A waiter still waiting when the window closes has waited at least this long: count it, or starvation would hide.
  waitingSince.forEach((since, index) => {
    if (since === undefined) return;
    if (keys.get(keyOf(index))?.lastOwner !== index) recordMs(newOwnerWait, closedAt - since);
  });

  let stuck = 0;
  if (!(await settlesWithin(Promise.all(loops), plan.drainMs))) {
    stuck = waitingSince.filter((since) => since !== undefined).length;
  }
  await Promise.all(workers.map((worker) => worker.close().catch(() => undefined)));
  for (const redis of connections) redis.disconnect();
  for (const client of nodeRedisConnections) if (client.isOpen) client.destroy();

  return {
    elapsedMs: closedAt - windowStart,
    acquisitions,
    perWorker,
    successions,
    ownerChanges,
    acquireLatency,
    newOwnerWait,
    switchGap,
    holds,
    shortHolds,
    cycles,
    commands: cycleCommands,
    subscriptionCommands: cycleSubscriptionCommands,
    clientCpuUs: cpu.user + cpu.system,
    redisCpuUs,
    overlaps: holders.overlaps,
    timeouts,
    errors,
    firstError,
    stuck,
  };
}

function subscriptionCommands(tally: CommandTally): number {
  return tally.count('subscribe') + tally.count('unsubscribe') + tally.count('ssubscribe') + tally.count('sunsubscribe');
}

async function redisCpuSeconds(server: BenchServer): Promise<number> {
  const info = await server.admin.info('cpu');
  return infoNumber(info, 'used_cpu_user') + infoNumber(info, 'used_cpu_sys');
}
