import { existsSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** What `stallSampler.ts` is started with. */
export interface SamplerInput {
  readonly probeTid: number;
  readonly redisPid: number | undefined;
  /** Int32Array over a SharedArrayBuffer: 0 while sampling, 1 to stop. */
  readonly stop: SharedArrayBuffer;
}

/** Numbers per sample: ms (`performance.timeOrigin + performance.now()`), probe ran ns, probe waited ns, Redis ran ns, Redis waited ns, steal ticks, probe's other threads ran ns. */
export const SAMPLE_FIELDS = 7;

/** A stretch of the probe's time, in `performance.now()` milliseconds. */
export interface Span {
  readonly start: number;
  readonly ms: number;
}

/** What the machine did during a span, from the samples around it. */
export interface StallAccount {
  /** The probe's main thread on a CPU (ms). */
  readonly probeRan: number;
  /** The probe's main thread ready to run, waiting for a CPU of the VM (ms). */
  readonly probeWaited: number;
  readonly redisRan: number;
  readonly redisWaited: number;
  /** The probe's other threads on a CPU (ms): V8's (collector, compiler), libuv's pool, the module loader's. */
  readonly othersRan: number;
  /** Steal ticks on the machine's vCPUs, 10 ms each: the host ran something else on a vCPU that had work. */
  readonly stealTicks: number;
  /** The sampler's own longest pause between samples (ms): it runs every 1 ms unless its vCPU was taken. */
  readonly samplerPauseMs: number;
  /** The one cause that explains most of the span (see `cause`). */
  readonly cause: StallCause;
}

export type StallCause = 'host took a vCPU' | 'probe waited for a vCPU' | "probe's other threads ran" | 'probe ran' | 'Redis ran or waited' | 'nothing ran';

export interface StallWatch {
  /** Stops sampling; `account` then tells what happened during any span of the time it sampled. */
  stop(): Promise<(span: Span) => StallAccount>;
}

/**
 * Watches, from a worker thread, what keeps a probe waiting: its own main thread running or waiting for a
 * CPU (and whether its other threads had it), Redis running or waiting (`redisPid`: see `redisPidFrom`),
 * or the host taking a vCPU (steal time, or the sampler itself stopped for longer than 3 ms). Resolves once
 * the first sample is taken; undefined where `/proc` has no scheduler statistics (not Linux). The sampler
 * costs a few per cent of a vCPU.
 */
export async function watchStalls(redisPid: number | undefined): Promise<StallWatch | undefined> {
  const own = `/proc/${String(process.pid)}/task/${String(process.pid)}/schedstat`;
  if (!existsSync(own)) return undefined;
  const stop = new SharedArrayBuffer(4);
  const input: SamplerInput = { probeTid: process.pid, redisPid, stop };
  // Node 20 gives a worker none of the process's module hooks: the worker registers tsx's itself.
  const sampler = JSON.stringify(new URL('./stallSampler.ts', import.meta.url).href);
  const worker = new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${sampler}); })`, { eval: true, workerData: input });
  let ready = (): void => undefined;
  const started = new Promise<void>((resolve) => (ready = resolve));
  const samples = new Promise<Float64Array>((resolve, reject) => {
    worker.on('message', (message: Float64Array | 'ready') => (message === 'ready' ? ready() : resolve(message)));
    worker.once('error', reject);
  });
  // A sampler that fails to start rejects here, through `samples`.
  await Promise.race([started, samples]);
  const offset = performance.timeOrigin;
  return {
    async stop() {
      const flag = new Int32Array(stop);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      const all = await samples;
      await worker.terminate();
      return (span) => accountSpan(all, span.start + offset, span.ms);
    },
  };
}

/** The Redis server's process id, from INFO, when it runs on this machine. */
export function redisPidFrom(info: string): number | undefined {
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  return Number.isInteger(pid) && isRedis(pid) ? pid : undefined;
}

function isRedis(pid: number): boolean {
  try {
    return readFileSync(`/proc/${String(pid)}/comm`, 'latin1').startsWith('redis-server');
  } catch {
    return false;
  }
}

/** What `samples` (`SAMPLE_FIELDS` numbers each, oldest first) say happened in the `ms` from `from` (their clock). */
export function accountSpan(samples: Float64Array, from: number, ms: number): StallAccount {
  const to = from + ms;
  const count = samples.length / SAMPLE_FIELDS;
  if (count === 0) throw new RangeError('no samples around the span');
  const value = (sample: number, index: number): number => samples[sample * SAMPLE_FIELDS + index] ?? 0;
  let first = 0;
  while (first + 1 < count && value(first + 1, 0) <= from) first++;
  let last = first;
  while (last + 1 < count && value(last, 0) < to) last++;
  let samplerPauseMs = 0;
  for (let i = first + 1; i <= last; i++) samplerPauseMs = Math.max(samplerPauseMs, value(i, 0) - value(i - 1, 0));
  const delta = (index: number): number => (value(last, index) - value(first, index)) / 1e6;
  const parts = {
    probeRan: delta(1),
    probeWaited: delta(2),
    redisRan: delta(3),
    redisWaited: delta(4),
    othersRan: delta(6),
    stealTicks: value(last, 5) - value(first, 5),
    samplerPauseMs,
  };
  return { ...parts, cause: cause(parts, ms) };
}

/**
 * The host comes first: while it holds a vCPU, nothing in the VM accounts for the time. Otherwise the
 * largest of the VM's own parts, if it covers a third of the span; if none does, nothing of ours ran or
 * waited: a wake-up (a timer, a reply) came late.
 */
function cause(parts: Omit<StallAccount, 'cause'>, ms: number): StallCause {
  const ours = parts.probeRan + parts.probeWaited + parts.redisRan + parts.redisWaited + parts.othersRan;
  if ((parts.samplerPauseMs > 3 || parts.stealTicks > 0) && ours < ms / 2) return 'host took a vCPU';
  const largest = Math.max(parts.probeRan, parts.probeWaited, parts.redisRan + parts.redisWaited, parts.othersRan);
  if (largest < ms / 3) return 'nothing ran';
  if (largest === parts.othersRan) return "probe's other threads ran";
  if (largest === parts.probeWaited) return 'probe waited for a vCPU';
  if (largest === parts.probeRan) return 'probe ran';
  return 'Redis ran or waited';
}
