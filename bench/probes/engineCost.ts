/**
 * What rxlock's engine costs the client per acquire/release cycle without a network: one client on the
 * memory store (`rxlock/testing`), `await client.acquire(name)` then `await handle.release()` on 16 names in
 * turn, as the uncontended scenario's workers do. CPU time (user + system) per cycle over 200,000 cycles,
 * 5 rounds after a warm-up; the median and all rounds. The memory store's own script emulation is included,
 * so this is an upper bound of the engine's share of a cycle. Run after `npm run build`:
 * `node --expose-gc --import tsx bench/probes/engineCost.ts` (with `RXLOCK_DIST` it measures another build).
 */
import { rxlock, rxlockTesting } from '../rxlock.js';
import { probeSize } from './size.js';

const ROUNDS = probeSize(5, 1);
const CYCLES = probeSize(200_000, 1_000);
const WARM_UP = probeSize(50_000, 100);
const NAMES = 16;

const client = rxlock.createLockClient({ store: rxlockTesting.createMemoryStore() });

async function cycles(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const handle = await client.acquire(`engine-cost-${String(i % NAMES)}`);
    await handle.release();
  }
}

await cycles(WARM_UP);
const perCycleUs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.cpuUsage();
  await cycles(CYCLES);
  const used = process.cpuUsage(before);
  perCycleUs.push((used.user + used.system) / CYCLES);
}
await client.close();
const sorted = [...perCycleUs].sort((a, b) => a - b);
console.log(
  `engine + memory store, CPU per acquire/release cycle: median ${sorted[Math.floor(ROUNDS / 2)]!.toFixed(2)} µs ` +
    `(rounds: ${perCycleUs.map((us) => us.toFixed(2)).join(', ')})`,
);
