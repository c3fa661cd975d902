import { describe, expect, it } from 'vitest';
import { summary, violations } from '../support/checker.js';
import { sleep } from '../support/leaks.js';
import { eventCount, figure, runWorkload, useRig } from './rig.js';

const TTL = 300;

describe('fault 6: the script cache is flushed (SCRIPT FLUSH) every 100 ms', () => {
  const rig = useRig();

  it('no error reaches the user: acquires, renewals and releases fall back to sending the script body', async () => {
    const current = rig();
    let flushes = 0;
    const { stats, report, errors } = await runWorkload(current, {
      workers: 2,
      clientsPerWorker: 4,
      locks: ['sf1', 'sf2', 'sf3', 'sf4', 'sf5', 'sf6'],
      watchdogTimeoutMs: TTL,
      // Long enough for renewals (every 100 ms) to run inside the sections too.
      workMs: [0, 350],
      async nemesis() {
        const until = performance.now() + 6_000;
        while (performance.now() < until) {
          await current.admin.script('FLUSH');
          flushes++;
          await sleep(100);
        }
      },
    });
    expect(errors).toEqual([]);
    expect(stats.reduce((sum, s) => sum + s.lost + s.errors + s.timeouts, 0)).toBe(0);
    expect({ renewFailed: eventCount(stats, 'renew-failed'), releaseFailed: eventCount(stats, 'release-failed') }).toEqual({
      renewFailed: 0,
      releaseFailed: 0,
    });
    expect(eventCount(stats, 'renewed')).toBeGreaterThan(50);
    expect(violations(report)).toEqual([]);
    figure('script-flush', `${flushes} flushes in 6 s; ${eventCount(stats, 'renewed')} renewals; errors reaching callers 0; ${summary(report)}`);
  });
});
