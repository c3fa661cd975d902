import { describe, expect, it } from 'vitest';
import { createLockClient } from '../../src/index.js';
import { now } from '../support/checker.js';
import { lockConnection } from '../support/clientLibrary.js';
import { sleep } from '../support/leaks.js';
import { startProxy } from '../support/proxy.js';
import { spawnWorker, type WorkerMessage } from '../support/workerProcess.js';
import { figure, useRig } from './rig.js';

const TTL = 600;
const HOUR = 3_600_000;
/** The child's wall clock: an hour ahead from 400 ms on, an hour behind from 1300 ms on. */
const JUMPS = [
  { afterMs: 400, offsetMs: HOUR },
  { afterMs: 1_300, offsetMs: -HOUR },
];

type Lost = WorkerMessage & { type: 'lost' };
const lostOf = (lock: string) => (message: WorkerMessage) => message.type === 'lost' && message.lock === lock;

describe('fault 10: clock jumps', () => {
  const rig = useRig();

  it('the client’s wall clock jumping an hour either way changes nothing; only the server’s expiry matters, learnt at the next renewal', async () => {
    const { locks, admin, seed } = rig();
    const parent = createLockClient({ redis: lockConnection(locks.port), clientId: 'parent' });
    const blocker = await parent.acquire('held-by-parent');
    const proxy = await startProxy(locks.port, { seed });
    const child = await spawnWorker({
      name: 'jumpy',
      mode: 'hold',
      redisPort: proxy.port,
      seed,
      clients: 2,
      locks: ['clock-a', 'clock-b'],
      watchdogTimeoutMs: TTL,
      clockJumps: JUMPS,
      // While an hour ahead: a wait of 600 ms must still take 600 ms.
      waits: [{ lock: 'held-by-parent', waitMs: 600, afterMs: 500 }],
    });
    await child.next((m) => m.type === 'enter' && m.lock === 'clock-b');
    const waited = (await child.next((m) => m.type === 'waited')) as WorkerMessage & { type: 'waited' };
    expect(waited.outcome).toBe('timeout');
    // Timers count the loop's whole milliseconds; performance.now() may read up to 1 ms short.
    expect(waited.ms).toBeGreaterThanOrEqual(599);
    expect(waited.ms).toBeLessThan(700);
    // Past both jumps, through several renewals: still held.
    await sleep(800);
    expect(child.messages.filter((m) => m.type === 'lost')).toEqual([]);

    // The server's clock jumps forward past the key's expiry: the holder learns at its next renewal.
    const expiredAt = now();
    await admin.pexpireat('clock-a', Date.now() - 1);
    const lostA = (await child.next(lostOf('clock-a'), 2 * TTL)) as Lost;
    expect(lostA.reason).toBe('not-held');
    expect(lostA.at - expiredAt).toBeLessThan(TTL / 3 + 50);

    // Renewals stop reaching Redis: after the backward jump, the loss still comes one TTL after the last renewal.
    const cutAt = now();
    proxy.setMode({ type: 'blackhole' });
    const lostB = (await child.next(lostOf('clock-b'), 3 * TTL)) as Lost;
    expect(lostB.reason).toBe('unconfirmed');
    expect(lostB.at - cutAt).toBeLessThan(TTL);
    proxy.setMode({ type: 'pass' });

    await child.stop();
    await blocker.release();
    await parent.close();
    await proxy.close();
    figure(
      'clock',
      `wall clock +1 h then -1 h: a 600 ms wait took ${waited.ms.toFixed(1)} ms, no lease lost; PEXPIREAT in the past: LockLostError(not-held) ${(lostA.at - expiredAt).toFixed(1)} ms later; ` +
        `renewals cut after the jumps: LockLostError(unconfirmed) ${(lostB.at - cutAt).toFixed(1)} ms later (TTL ${TTL} ms)`,
    );
  });

  it('control: with a Date.now()-based scheduler the same backward jump leaves a cut-off holder believing it holds the lock', async () => {
    const { locks, seed } = rig();
    const proxy = await startProxy(locks.port, { seed });
    const child = await spawnWorker({
      name: 'datebased',
      mode: 'hold',
      redisPort: proxy.port,
      seed,
      clients: 1,
      locks: ['clock-c'],
      watchdogTimeoutMs: TTL,
      clockJumps: JUMPS,
      scheduler: 'date',
    });
    await child.next((m) => m.type === 'enter');
    await sleep(1_600);
    proxy.setMode({ type: 'blackhole' });
    await sleep(3 * TTL);
    // The key has expired on the server, yet nothing told the holder: this is what the monotonic default prevents.
    expect(child.messages.filter((m) => m.type === 'lost')).toEqual([]);
    proxy.setMode({ type: 'pass' });
    await child.stop();
    await proxy.close();
    figure('clock', `control with rxjs asyncScheduler (Date.now): after the -1 h jump a cut-off holder heard nothing for ${3 * TTL} ms`);
  });
});
