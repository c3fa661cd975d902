import { describe, expect, it } from 'vitest';
import { createLockClient, type Lease } from '../../src/index.js';
import { now, seededRandom } from '../support/checker.js';
import { lockConnection } from '../support/clientLibrary.js';
import { sleep } from '../support/leaks.js';
import { spawnWorker, type WorkerMessage } from '../support/workerProcess.js';
import { figure, spread, useRig } from './rig.js';

const TTL = 1_000;
/** Waking at the holder's TTL, one attempt's round trip, and timer lateness on a busy 2-core machine. */
const MARGIN_MS = 60;

describe('fault 4: a client process holding locks is killed with SIGKILL', () => {
  const rig = useRig();

  it('waiters in another process acquire within the TTL plus a small margin', async () => {
    const { seed, locks } = rig();
    const random = seededRandom(seed);
    const recoveries: number[] = [];
    const names = ['crash-0', 'crash-1', 'crash-2', 'crash-3'];
    for (let trial = 0; trial < 4; trial++) {
      const holder = await spawnWorker({
        name: `holder${trial}`,
        mode: 'hold',
        redisPort: locks.port,
        seed: seed + trial,
        clients: 4,
        locks: names,
        watchdogTimeoutMs: TTL,
      });
      const entered = await Promise.all(names.map((name) => holder.next((m) => m.type === 'enter' && m.lock === name)));
      const waiters = names.map((_, i) => createLockClient({ redis: lockConnection(locks.port), clientId: `waiter${trial}-${i}`, watchdogTimeoutMs: TTL }));
      const granted: { at: number; lease: Lease }[] = [];
      const subscriptions = waiters.map((client, i) => client.lock$(names[i]!, { fencing: true }).subscribe((lease) => granted.push({ at: now(), lease })));
      // Kill at a different point of the holders' renewal cycle in every trial.
      await sleep(200 + Math.floor(random() * TTL));
      expect(granted).toEqual([]);
      const killedAt = await holder.kill();
      while (granted.length < names.length) await sleep(5);
      for (const { at, lease } of granted) {
        recoveries.push(at - killedAt);
        expect(at - killedAt).toBeLessThan(TTL + MARGIN_MS);
        const before = entered.find((m): m is WorkerMessage & { type: 'enter' } => m.type === 'enter' && m.lock === lease.name);
        expect(lease.token).toBeGreaterThan(before!.token);
      }
      subscriptions.forEach((subscription) => subscription.unsubscribe());
      await Promise.all(waiters.map((client) => client.close()));
    }
    figure('crash', `waiters acquired ${spread(recoveries)} after SIGKILL of the holder (TTL ${TTL} ms)`);
  });
});
