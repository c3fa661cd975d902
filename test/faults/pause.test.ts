import { describe, expect, it } from 'vitest';
import { checkHistory, monitorExpiries, now, openAt, seededRandom, summary, violations } from '../support/checker.js';
import { sleep } from '../support/leaks.js';
import { spawnWorker } from '../support/workerProcess.js';
import { figure, spread, useRig } from './rig.js';

const TTL = 5_000;
// The error comes from a timer, so it is on time only while the workers' event loops are late by less than the
// drift allowance. Two workers of three clients each share the machine with Redis, the test and MONITOR: on a
// shared 2-core CI machine their timers have been seen about 270 ms and over 500 ms late, where an idle machine
// has them a few ms late. A user on such a host sets `driftMs` the same way.
const DRIFT_MS = 1_000;
const DRIFT = Math.ceil(TTL * 0.01) + DRIFT_MS;

describe('fault 2: Redis paused (SIGSTOP) for longer than the lease', () => {
  const rig = useRig();

  it('holders error at their local deadline, before Redis expires their keys; nobody believes in an expired lock', async () => {
    const { seed, locks, admin, resource, resourceServer } = rig();
    const random = seededRandom(seed);
    const expiries = await monitorExpiries(locks.client());
    const workers = await Promise.all(
      [1, 2].map((i) =>
        spawnWorker({
          name: `w${i}`,
          mode: 'loop',
          redisPort: locks.port,
          resourcePort: resourceServer.port,
          seed: seed + i,
          clients: 3,
          locks: ['p1', 'p2', 'p3', 'p4'],
          watchdogTimeoutMs: TTL,
          driftMs: DRIFT_MS,
          // Long enough that works open at a pause outlive their lease there (3.3–5 s after it starts): with works
          // of 2–8 s, one CI run's six pauses found every open section ending before its deadline: nothing was lost.
          workMs: [2_000, 12_000],
        }),
      ),
    );
    const pauses: { at: number; ms: number }[] = [];
    await sleep(1_000);
    for (let i = 0; i < 6; i++) {
      await sleep(Math.floor(random() * TTL));
      const ms = Math.floor(TTL * (1.5 + random()));
      pauses.push({ at: now(), ms });
      locks.signal('SIGSTOP');
      await sleep(ms);
      locks.signal('SIGCONT');
      await sleep(3_000);
    }
    const stats = await Promise.all(workers.map((worker) => worker.stop()));
    // MONITOR output written while the server was stopped arrives once it runs again.
    await admin.ping();
    await sleep(100);
    expiries.stop();
    const sections = workers.flatMap((worker) => worker.sections);
    const report = checkHistory(sections, await resource.writes());

    expect(stats.reduce((sum, s) => sum + s.errors, 0)).toBe(0);
    const signalMargins: number[] = [];
    const deadlineMargins: number[] = [];
    for (const { at } of pauses) {
      const open = openAt(sections, at);
      expect(open.length).toBeGreaterThan(0);
      for (const section of open) {
        const expiry = expiries.expiryAt(section.lock, at);
        expect(expiry).toBeDefined();
        // Believed held until `end` (capped by the deadline); told at `observedEnd`. Both before the server let go.
        expect(section.end).toBeLessThan(expiry!);
        if (section.outcome === 'lost') {
          expect(section.lostReason).toBe('unconfirmed');
          expect(section.observedEnd, `told ${(section.observedEnd - section.end).toFixed(1)} ms after the lease's deadline`).toBeLessThan(expiry!);
          signalMargins.push(expiry! - section.observedEnd);
          deadlineMargins.push(expiry! - section.end);
        }
      }
    }
    expect(signalMargins.length).toBeGreaterThan(0);
    // A grant whose reply came back after its own deadline (sent before the pause) is never handed to the work.
    expect(sections.filter((section) => section.end <= section.start)).toEqual([]);
    if (violations(report).length > 0) {
      // What a failure needs to be understood: the pauses and every section of the locks involved.
      const involved = new Set(violations(report).map((text) => /overlap on (\S+):/.exec(text)?.[1]));
      console.log('pauses', JSON.stringify(pauses));
      console.log(
        JSON.stringify(
          sections.filter((section) => involved.has(section.lock)),
          null,
          1,
        ),
      );
    }
    expect(violations(report)).toEqual([]);
    figure('pause', `${pauses.length} pauses of ${pauses.map((p) => p.ms).join(', ')} ms (TTL ${TTL} ms, drift ${DRIFT} ms)`);
    figure('pause', `LockLostError before server expiry by ${spread(signalMargins)}; lease deadline before it by ${spread(deadlineMargins)}`);
    figure('pause', summary(report));
  });
});
