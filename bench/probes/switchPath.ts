/**
 * Where a switch goes: one holder, one queued waiter (two clients, each with its own connections, in this
 * one process as in the bench), alternating, on a fair lock (`PROBE_LOCK=lock`: the plain lock). For each
 * hand-off it records, from the holder's unsubscribe: when the release command went to ioredis
 * (`sendCommand`) and into the socket, when the release script read the server's clock (the grant message
 * carries that `TIME`; converted to this process's clock with the offset of the fastest of 200 `TIME` round
 * trips before and after), when the release's reply reached the holder's socket and when the hand-off message
 * reached the waiter's (the first bytes read from each, and which came first), when the release's reply was
 * delivered (`released` event), when the waiter's subscriber connection got the hand-off message, and when the
 * waiter's lease arrived; the medians of the steps between those marks within each hand-off; how often this
 * process finished the poll phase that read the release's reply (and so reached its deferred delivery) before
 * it read the hand-off message; and PING round trips back to back and after a 1 ms pause. Run after
 * `npm run build`: `node --import tsx bench/probes/switchPath.ts`.
 */
import type { Redis } from 'ioredis';
import { filter, firstValueFrom, type Subscription } from 'rxjs';
import type { LockClient } from '../../src/index.js';
import { latencyHistogram, median, recordMs, summarize, type Histogram } from '../histogram.js';
import { rxlock } from '../rxlock.js';
import { measurePing, pingHistograms } from '../scenarios/ping.js';
import { openServer, trackedConnections } from '../server.js';
import { sleep } from '../sleep.js';
import { probeSize } from './size.js';

const HAND_OFFS = probeSize(2_000, 20);
const WARM_UP = probeSize(200, 5);
const CLOCK_ROUND_TRIPS = probeSize(200, 10);
const PINGS = probeSize(2_000, 20);

const server = await openServer(process.env['REDIS_URL']);
const marks = {
  sent: latencyHistogram(),
  written: latencyHistogram(),
  script: latencyHistogram(),
  released: latencyHistogram(),
  message: latencyHistogram(),
  lease: latencyHistogram(),
  replyRead: latencyHistogram(),
  messageRead: latencyHistogram(),
};
const MARK_NAMES = new Map(Object.entries(marks).map(([name, histogram]) => [histogram, name as keyof typeof marks]));
/** Per hand-off: whether the release's reply or the hand-off message has been read yet. */
let replyRead = true;
let messageRead = true;
const firstRead = { reply: 0, message: 0 };
/** Marks the first bytes a socket read during a hand-off, and counts which of the two sockets read first. */
function markRead(stream: NodeJS.EventEmitter, which: 'reply' | 'message'): void {
  stream.prependListener('data', () => {
    if (startedAt === undefined) return;
    if (which === 'reply' ? replyRead || !writtenMarked : messageRead) return;
    if (!replyRead && !messageRead) firstRead[which]++;
    if (which === 'reply') replyRead = true;
    else messageRead = true;
    mark(which === 'reply' ? marks.replyRead : marks.messageRead);
    // When this process got to the code after that read's poll phase (where a deferred release reply is delivered).
    const began = startedAt;
    if (which === 'reply') setImmediate(() => (marked.replyHandled = performance.now() - began));
  });
}
/** Server µs of each grant message, with this process's clock (µs since `performance.timeOrigin`) when the hand-off began. */
const scriptTimes: { serverUs: number; startedAt: number }[] = [];
let startedAt: number | undefined;
let sentMarked = true;
let writtenMarked = true;
/** This hand-off's marks (ms from its start) by name, for the differences between them within each hand-off. */
let marked: Partial<Record<keyof typeof marks | 'replyHandled', number>> = {};
const perHandOff: (typeof marked)[] = [];
const mark = (histogram: Histogram): void => {
  if (startedAt === undefined) return;
  const at = performance.now() - startedAt;
  recordMs(histogram, at);
  const name = MARK_NAMES.get(histogram);
  if (name !== undefined) marked[name] ??= at;
};

/** A client whose pub/sub connection also reports each message's arrival. */
const connections = trackedConnections(server);
function client(): LockClient {
  const redis = connections.connect();
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    if (!sentMarked) {
      sentMarked = true;
      mark(marks.sent);
    }
    return send(...args);
  };
  redis.once('connect', () => {
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write.bind(stream);
    stream.write = (...args: unknown[]) => {
      if (sentMarked && !writtenMarked) {
        writtenMarked = true;
        mark(marks.written);
      }
      return write(...args);
    };
    markRead(stream as unknown as NodeJS.EventEmitter, 'reply');
  });
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (...args: Parameters<Redis['duplicate']>) => {
    const subscriber = duplicate(...args);
    subscriber.once('connect', () => markRead((subscriber as unknown as { stream: NodeJS.EventEmitter }).stream, 'message'));
    subscriber.on('message', (_channel: string, message: string) => {
      mark(marks.message);
      // `rxlock:grant <token> <server µs> …` for both locks.
      const serverUs = Number(message.split(' ')[2]);
      if (startedAt !== undefined && Number.isFinite(serverUs)) scriptTimes.push({ serverUs, startedAt });
    });
    return subscriber;
  };
  return rxlock.createLockClient({ redis });
}

/** Server clock − this process's clock (µs), from the `TIME` round trip with the shortest time in flight. */
async function clockOffsetUs(redis: Redis): Promise<number> {
  let best = { rttUs: Infinity, offsetUs: 0 };
  for (let i = 0; i < CLOCK_ROUND_TRIPS; i++) {
    const sentAt = performance.now();
    const [seconds = '0', micros = '0'] = await redis.time();
    const repliedAt = performance.now();
    const rttUs = (repliedAt - sentAt) * 1000;
    const serverUs = Number(seconds) * 1e6 + Number(micros);
    if (rttUs < best.rttUs) best = { rttUs, offsetUs: serverUs - (performance.timeOrigin + (sentAt + repliedAt) / 2) * 1000 };
  }
  return best.offsetUs;
}

const clockConnection = server.connect();
const offsetBefore = await clockOffsetUs(clockConnection);
const kind = process.env['PROBE_LOCK'] === 'lock' ? 'lock$' : 'fairLock$';
const key = `switch-path-${String(Date.now())}`;
let holder = client();
let waiter = client();
let held: Subscription = holder[kind](key).subscribe();
await firstValueFrom(holder.events$.pipe(filter((event) => event.type === 'acquired')));
for (let i = 0; i < HAND_OFFS + WARM_UP; i++) {
  const queued = firstValueFrom(waiter.events$.pipe(filter((event) => event.type === 'waiting')));
  const leased = new Promise<Subscription>((resolve) => {
    const next = waiter[kind](key).subscribe(() => {
      mark(marks.lease);
      resolve(next);
    });
  });
  await queued;
  await sleep(2);
  const released = firstValueFrom(holder.events$.pipe(filter((event) => event.type === 'released')));
  void released.then(() => mark(marks.released));
  if (i >= WARM_UP) startedAt = performance.now();
  sentMarked = false;
  writtenMarked = false;
  replyRead = false;
  messageRead = false;
  held.unsubscribe();
  held = await leased;
  await released;
  if (startedAt !== undefined) perHandOff.push(marked);
  marked = {};
  startedAt = undefined;
  [holder, waiter] = [waiter, holder];
}
held.unsubscribe();
await sleep(50);
const offsetAfter = await clockOffsetUs(clockConnection);
clockConnection.disconnect();
const offsetUs = (offsetBefore + offsetAfter) / 2;
for (const { serverUs, startedAt: began } of scriptTimes) recordMs(marks.script, (serverUs - offsetUs) / 1000 - performance.timeOrigin - began);

const ping = pingHistograms();
await measurePing(server, ping, PINGS);
const line = (label: string, histogram: Histogram): string => {
  const summary = summarize(histogram);
  return `${label.padEnd(44)} p50 ${summary?.p50Ms.toFixed(3) ?? '–'} ms  p99 ${summary?.p99Ms.toFixed(3) ?? '–'} ms`;
};
console.log(`${server.description}; ${String(HAND_OFFS)} ${kind} hand-offs, times from the holder's unsubscribe`);
console.log(`clock offset to the server: ${(offsetAfter - offsetBefore).toFixed(0)} µs drift over the run`);
console.log(line('release command sent (sendCommand)', marks.sent));
console.log(line('release written into the socket', marks.written));
console.log(line('release script read the clock (server TIME)', marks.script));
console.log(line("release reply read at the holder's socket", marks.replyRead));
console.log(line("hand-off message read at the waiter's socket", marks.messageRead));
console.log(`read first: the reply in ${String(firstRead.reply)} hand-offs, the message in ${String(firstRead.message)}`);
console.log(line('release reply (released event)', marks.released));
console.log(line("hand-off message at the waiter's connection", marks.message));
console.log(line("waiter's lease", marks.lease));
type MarkName = keyof typeof marked;
/** Median over the hand-offs of `to − from`, in µs. */
const medianStep = (from: MarkName, to: MarkName): string => {
  const steps = perHandOff.flatMap((m) => (m[from] === undefined || m[to] === undefined ? [] : [m[to] - m[from]]));
  return steps.length === 0 ? '–' : `${(median(steps) * 1000).toFixed(0)} µs`;
};
console.log(
  `per hand-off, medians: written → reply read ${medianStep('written', 'replyRead')}, reply read → message read ${medianStep('replyRead', 'messageRead')}, ` +
    `message read → at the connection ${medianStep('messageRead', 'message')}, at the connection → lease ${medianStep('message', 'lease')}`,
);
const handledFirst = perHandOff.filter((m) => m.replyHandled !== undefined && m.messageRead !== undefined && m.replyHandled < m.messageRead).length;
console.log(`the poll phase that read the reply ended before the message was read in ${String(handledFirst)} of ${String(perHandOff.length)} hand-offs`);
console.log(line('PING back to back', ping.backToBack));
console.log(line('PING after a 1 ms pause', ping.afterPause));
console.log(line('publish-only script after a 1 ms pause', ping.publishAfterPause));
await holder.close();
await waiter.close();
connections.disconnectAll();
await server.stop();
