/**
 * The worker thread of `stalls.ts`: every millisecond it reads, from Linux's `/proc`, how long the probe's
 * main thread and Redis's have run and waited for a CPU so far (`schedstat`, in ns), how long the probe's
 * other threads have run (V8's collector and compiler threads, the module loader's; not this one), and the
 * machine's steal time (`/proc/stat`, in ticks of 10 ms: time the host ran something else on a vCPU that had
 * work). It posts `ready` after its first sample, and its samples once the main thread sets the stop flag.
 *
 * It allocates nothing per sample (numbers parsed from the bytes read, into a preallocated array), so that
 * its own garbage collection does not load V8's threads, which it counts among the probe's.
 */
import { closeSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { SAMPLE_FIELDS, type SamplerInput } from './stalls.js';

const INTERVAL_MS = 1;

const { probeTid, redisPid, stop } = workerData as SamplerInput;
const flag = new Int32Array(stop);
const buffer = Buffer.alloc(4096);

/** The `index`th space-separated decimal field of the file, read again from its start. */
function field(fd: number, index: number): number {
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  let current = 0;
  let value = 0;
  let inField = false;
  for (let i = 0; i < length; i++) {
    const byte = buffer[i]!;
    if (byte === 0x20 || byte === 0x0a) {
      if (inField && current++ === index) return value;
      inField = false;
      if (byte === 0x0a) break;
    } else if (byte >= 0x30 && byte <= 0x39) {
      if (!inField) value = 0;
      inField = true;
      value = value * 10 + (byte - 0x30);
    } else {
      inField = true;
    }
  }
  return inField && current === index ? value : 0;
}

const tasks = `/proc/${String(process.pid)}/task`;
const self = readlinkSync('/proc/thread-self').split('/').pop();
const probeFd = openSync(`${tasks}/${String(probeTid)}/schedstat`, 'r');
const redisFd = redisPid === undefined ? undefined : openSync(`/proc/${String(redisPid)}/task/${String(redisPid)}/schedstat`, 'r');
const statFd = openSync('/proc/stat', 'r');
const otherFds = readdirSync(tasks)
  .filter((tid) => tid !== String(probeTid) && tid !== self)
  .map((tid) => openSync(`${tasks}/${tid}/schedstat`, 'r'));

let samples = new Float64Array(SAMPLE_FIELDS * 200_000);
let count = 0;
while (Atomics.load(flag, 0) === 0) {
  if ((count + 1) * SAMPLE_FIELDS > samples.length) {
    const larger = new Float64Array(samples.length * 2);
    larger.set(samples);
    samples = larger;
  }
  const at = count * SAMPLE_FIELDS;
  // The wall clock at this thread's start plus a monotonic offset, as the main thread can work it out too.
  samples[at] = performance.timeOrigin + performance.now();
  samples[at + 1] = field(probeFd, 0);
  samples[at + 2] = field(probeFd, 1);
  samples[at + 3] = redisFd === undefined ? 0 : field(redisFd, 0);
  samples[at + 4] = redisFd === undefined ? 0 : field(redisFd, 1);
  // The first line: "cpu  user nice system idle iowait irq softirq steal …"; "cpu" is not a number.
  samples[at + 5] = field(statFd, 8);
  let others = 0;
  for (const fd of otherFds) others += field(fd, 0);
  samples[at + 6] = others;
  if (++count === 1) parentPort?.postMessage('ready');
  Atomics.wait(flag, 0, 0, INTERVAL_MS);
}
for (const fd of [probeFd, redisFd, statFd, ...otherFds]) if (fd !== undefined) closeSync(fd);
parentPort?.postMessage(samples.subarray(0, count * SAMPLE_FIELDS));
