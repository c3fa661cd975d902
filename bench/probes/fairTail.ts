/**
 * What the fair lock's slowest waits in the contended scenario have in common: 8 workers on one key, hold
 * 1 ms, as in the bench, for `PROBE_SECONDS` (default 10) after a 1 s lead-in, with V8's garbage collections
 * recorded alongside. A wait is made of the holds and switches ahead of it, so it also prints how long the
 * holds (`setTimeout(1)`) and the switches (one worker's release call to the next worker holding) took. For
 * the slowest waits it prints which collections overlapped them. Run after `npm run build`:
 * `node --import tsx bench/probes/fairTail.ts` (`PROBE_LOCK=lock`: the plain lock, for comparison). Each slow wait
 * is shown with the holds and switches that lie wholly inside it (how many, their total, the longest). Last,
 * what Redis spent executing each script's calls during the measured seconds (SLOWLOG, see `scriptTimes.ts`).
 * `PROBE_STALLS=1` also samples the scheduler (`stalls.ts`) and says, for each hold or switch of 5 ms or more,
 * what held it up: the host taking a vCPU, the probe or Redis running or waiting for a vCPU, or nothing
 * running at all (a late wake-up).
 */
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { rxlockFairLock } from '../contenders/rxlockFairLock.js';
import { rxlockLock } from '../contenders/rxlockLock.js';
import { latencyHistogram, recordMs, summarize, type Histogram } from '../histogram.js';
import { openServer, trackedConnections } from '../server.js';
import { sleep } from '../sleep.js';
import { recordScriptTimes } from './scriptTimes.js';
import { probeSize } from './size.js';
import { redisPidFrom, watchStalls, type Span, type StallAccount } from './stalls.js';

const WORKERS = 8;
const HOLD_MS = 1;
const LEAD_IN_MS = probeSize(1_000, 100);
const SECONDS = Number(process.env['PROBE_SECONDS'] ?? probeSize(10, 0.5));
const SLOW_MS = 15;
const STALL_MS = 5;

const server = await openServer(process.env['REDIS_URL']);
const key = `fair-tail-${String(Date.now())}`;
const connections = trackedConnections(server);
const contender = process.env['PROBE_LOCK'] === 'lock' ? rxlockLock : rxlockFairLock;
const workers = await Promise.all(Array.from({ length: WORKERS }, () => contender.open({ key, connect: connections.connect })));

const collections: (Span & { readonly kind: string })[] = [];
const kinds: Record<number, string> = { 1: 'scavenge', 2: 'minor mark-sweep', 4: 'mark-compact', 8: 'incremental marking', 16: 'weak callbacks' };
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind ?? 0;
    collections.push({ start: entry.startTime, ms: entry.duration, kind: kinds[kind] ?? `kind ${String(kind)}` });
  }
});
observer.observe({ entryTypes: ['gc'] });
const loopDelay = monitorEventLoopDelay({ resolution: 1 });

const waits: Span[] = [];
const holdSpans: Span[] = [];
const switchSpans: Span[] = [];
const wait = latencyHistogram();
const holds = latencyHistogram();
const switches = latencyHistogram();
let releasedAt: number | undefined;
let running = true;
let lastOwner = -1;
let measureFrom = Infinity;
const loops = workers.map(async (worker, index) => {
  while (running) {
    const start = performance.now();
    await worker.acquire();
    const at = performance.now();
    if (lastOwner !== index && start >= measureFrom) {
      waits.push({ start, ms: at - start });
      recordMs(wait, at - start);
    }
    const measured = start >= measureFrom;
    if (measured && lastOwner !== index && releasedAt !== undefined) {
      recordMs(switches, at - releasedAt);
      switchSpans.push({ start: releasedAt, ms: at - releasedAt });
    }
    lastOwner = index;
    await sleep(HOLD_MS);
    releasedAt = performance.now();
    if (measured) {
      recordMs(holds, releasedAt - at);
      holdSpans.push({ start: at, ms: releasedAt - at });
    }
    await worker.release();
  }
});
await sleep(LEAD_IN_MS);
const readScriptTimes = await recordScriptTimes(server.admin);
const stalls = process.env['PROBE_STALLS'] === '1' ? await watchStalls(redisPidFrom(await server.admin.info('server'))) : undefined;
measureFrom = performance.now();
loopDelay.enable();
await sleep(SECONDS * 1_000);
running = false;
loopDelay.disable();
await Promise.all(loops);
const accountFor = await stalls?.stop();
observer.disconnect();
const scriptTimes = await readScriptTimes();

const during = (span: Span): string[] =>
  collections.filter((gc) => gc.start < span.start + span.ms && gc.start + gc.ms > span.start).map((gc) => `${gc.kind} ${gc.ms.toFixed(1)} ms`);
/** The spans that lie inside `span`: their total and the longest. */
const inside = (spans: readonly Span[], span: Span): string => {
  const within = spans.filter((other) => other.start >= span.start && other.start + other.ms <= span.start + span.ms + 0.001);
  const total = within.reduce((sum, other) => sum + other.ms, 0);
  const longest = Math.max(0, ...within.map((other) => other.ms));
  return `${String(within.length)} of ${total.toFixed(1)} ms (longest ${longest.toFixed(1)})`;
};
const inWindow = collections.filter((gc) => gc.start >= measureFrom);
const slow = waits.filter((span) => span.ms > SLOW_MS);
const summary = summarize(wait);
console.log(`${server.description}; ${contender.label}, ${String(WORKERS)} workers, hold ${String(HOLD_MS)} ms, ${String(SECONDS)} s`);
console.log(
  `new-owner waits ${String(waits.length)}: p50 ${summary?.p50Ms.toFixed(1) ?? '–'} ms, p99 ${summary?.p99Ms.toFixed(1) ?? '–'} ms, max ${summary?.maxMs.toFixed(1) ?? '–'} ms`,
);
console.log(
  `event-loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(2)} ms, max ${(loopDelay.max / 1e6).toFixed(2)} ms; ` +
    `collections ${String(inWindow.length)}, ${inWindow.reduce((sum, gc) => sum + gc.ms, 0).toFixed(1)} ms in all`,
);
const percentiles = (label: string, histogram: Histogram): string => {
  const parts = summarize(histogram);
  return `${label} p50 ${parts?.p50Ms.toFixed(2) ?? '–'} ms, p99 ${parts?.p99Ms.toFixed(2) ?? '–'} ms, max ${parts?.maxMs.toFixed(1) ?? '–'} ms`;
};
console.log(`${percentiles('holds', holds)}; ${percentiles('switches', switches)}`);
console.log(
  `waits over ${String(SLOW_MS)} ms: ${String(slow.length)}, of which ${String(slow.filter((span) => during(span).length > 0).length)} overlapped a collection`,
);
for (const span of [...waits].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
  console.log(
    `  ${span.ms.toFixed(1).padStart(6)} ms at ${((span.start - measureFrom) / 1_000).toFixed(2)} s: holds ${inside(holdSpans, span)}, switches ${inside(switchSpans, span)}; ${during(span).join(', ') || 'no collection'}`,
  );
}
if (accountFor !== undefined) printStalls(accountFor);
console.log('server time per script call (SLOWLOG, execution only):');
for (const line of scriptTimes) console.log(`  ${line}`);
for (const worker of workers) await worker.close();
connections.disconnectAll();
await server.stop();

function printStalls(accountFor: (span: Span) => StallAccount): void {
  const long = [...holdSpans.map((span) => ({ span, kind: 'hold' })), ...switchSpans.map((span) => ({ span, kind: 'switch' }))]
    .filter(({ span }) => span.ms >= STALL_MS)
    .map((entry) => ({ ...entry, account: accountFor(entry.span) }))
    .sort((a, b) => b.span.ms - a.span.ms);
  const byCause = new Map<string, number>();
  for (const { account } of long) byCause.set(account.cause, (byCause.get(account.cause) ?? 0) + 1);
  const counts = [...byCause].map(([cause, count]) => `${cause} ${String(count)}`).join(', ');
  console.log(`holds and switches of ${String(STALL_MS)} ms or more: ${String(long.length)}; what held them up: ${counts || 'none'}`);
  const ms = (value: number): string => value.toFixed(1);
  for (const { span, kind, account } of long.slice(0, 10)) {
    console.log(
      `  ${kind} ${ms(span.ms)} ms at ${((span.start - measureFrom) / 1_000).toFixed(2)} s: ${account.cause} (probe ran ${ms(account.probeRan)}, ` +
        `waited ${ms(account.probeWaited)}, its other threads ran ${ms(account.othersRan)}; Redis ran ${ms(account.redisRan)}, waited ${ms(account.redisWaited)}; ` +
        `steal ticks ${String(account.stealTicks)}; sampler paused up to ${ms(account.samplerPauseMs)} ms; ${nearestCollection(span)})`,
    );
  }
}

/** The collection that started closest to `span`'s start, and when: concurrent marking runs on V8's threads before its pause. */
function nearestCollection(span: Span): string {
  const nearest = collections.reduce<(typeof collections)[number] | undefined>(
    (best, gc) => (best === undefined || Math.abs(gc.start - span.start) < Math.abs(best.start - span.start) ? gc : best),
    undefined,
  );
  if (nearest === undefined) return 'no collection';
  const offset = nearest.start - span.start;
  return `nearest collection: ${nearest.kind} ${nearest.ms.toFixed(1)} ms, ${offset >= 0 ? 'starting' : 'started'} ${Math.abs(offset).toFixed(0)} ms ${offset >= 0 ? 'after' : 'before'} the span's start`;
}
