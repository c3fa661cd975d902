/**
 * What a contended acquisition leaves to V8's garbage collector: 8 workers on one key, hold 1 ms, as in the
 * bench's contended scenario, for `PROBE_SECONDS` (default 8) after a 3 s lead-in, one child process per
 * contender run with `--trace-gc-nvp`. Per contender it prints the bytes promoted to the old generation per
 * acquisition (what survives young-generation collections: it makes them slower and brings on full ones), the
 * scavenge pauses and the full collections in the measured window. Run after `npm run build`:
 * `node --import tsx bench/probes/gcPromotion.ts` (`PROBE_CONTENDERS=rxlock,rxlock-fair` picks contenders; with
 * `RXLOCK_DIST` it measures another build).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONTENDERS } from '../contenders/index.js';
import { openServer, trackedConnections } from '../server.js';
import { sleep } from '../sleep.js';
import { probeSize } from './size.js';

const WORKERS = 8;
const HOLD_MS = 1;
const LEAD_IN_MS = probeSize(3_000, 100);
const SECONDS = Number(process.env['PROBE_SECONDS'] ?? probeSize(8, 0.5));
const START = 'gc-promotion: measuring';
const END = 'gc-promotion: acquisitions';

const [, , childFlag, childId] = process.argv;
if (childFlag === '--child' && childId !== undefined) await runChild(childId);
else runParent();

/** One contender's window, printing markers around it; V8 prints its collections in between. */
async function runChild(id: string): Promise<void> {
  const contender = CONTENDERS.find((candidate) => candidate.id === id);
  if (contender === undefined) throw new RangeError(`gcPromotion: no contender "${id}"`);
  const server = await openServer(process.env['REDIS_URL']);
  const key = `gc-promotion-${id}-${String(Date.now())}`;
  const connections = trackedConnections(server);
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => contender.open({ key, connect: connections.connect })));
  let running = true;
  let acquisitions = 0;
  let measuring = false;
  const loops = workers.map(async (worker) => {
    while (running) {
      while (!(await worker.acquire()));
      if (measuring) acquisitions++;
      await sleep(HOLD_MS);
      await worker.release();
    }
  });
  await sleep(LEAD_IN_MS);
  console.log(START);
  measuring = true;
  await sleep(SECONDS * 1_000);
  measuring = false;
  console.log(`${END} ${String(acquisitions)}`);
  running = false;
  await Promise.all(loops);
  for (const worker of workers) await worker.close();
  connections.disconnectAll();
  await server.deleteKeys(key);
  await server.stop();
}

function runParent(): void {
  const ids = (process.env['PROBE_CONTENDERS'] ?? 'rxlock,rxlock-fair,redis-semaphore').split(',');
  const self = fileURLToPath(import.meta.url);
  console.log(
    `${String(WORKERS)} workers on one key, hold ${String(HOLD_MS)} ms, ${String(SECONDS)} s measured after a ${String(LEAD_IN_MS / 1_000)} s lead-in`,
  );
  for (const id of ids) {
    const output = execFileSync(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', self, '--child', id], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    console.log(`${id.padEnd(16)} ${summarizeTrace(output)}`);
  }
}

/** Reads the `--trace-gc-nvp` lines of the main isolate between the markers. */
function summarizeTrace(output: string): string {
  const lines = output.split('\n');
  const from = lines.indexOf(START);
  const to = lines.findIndex((line) => line.startsWith(END));
  if (from === -1 || to === -1) throw new Error(`gcPromotion: the child printed no markers:\n${output.slice(-2_000)}`);
  const acquisitions = Number(lines[to]!.slice(END.length + 1));
  // The module loader's isolate traces its own collections too: keep the isolate that collected most.
  const traced = lines.slice(from + 1, to).filter((line) => line.includes(' ms: pause='));
  const isolateOf = (line: string): string => line.slice(0, line.indexOf(']') + 1);
  const counts = new Map<string, number>();
  for (const line of traced) counts.set(isolateOf(line), (counts.get(isolateOf(line)) ?? 0) + 1);
  const main = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  let promoted = 0;
  const scavenges: number[] = [];
  let full = 0;
  for (const line of traced.filter((candidate) => isolateOf(candidate) === main)) {
    const field = (name: string): number => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    if (/\bgc=s\b/.test(line)) {
      promoted += field('promoted');
      scavenges.push(field('pause'));
    } else if (/\bgc=m?mc\b/.test(line)) {
      full++;
    }
  }
  const mean = scavenges.reduce((sum, ms) => sum + ms, 0) / Math.max(1, scavenges.length);
  return (
    `${acquisitions.toLocaleString('en-US')} acquisitions: promoted ${(promoted / Math.max(1, acquisitions)).toFixed(0)} B/acquisition; ` +
    `${String(scavenges.length)} scavenges, pause mean ${mean.toFixed(2)} ms, max ${Math.max(0, ...scavenges).toFixed(1)} ms; ${String(full)} full collections`
  );
}
