import { lockConnection } from '../support/clientLibrary.js';
import { describe, expect, it } from 'vitest';
import { createLockClient, LockLostError, type Lease, type LockClient, type LockEvent } from '../../src/index.js';
import { now } from '../support/checker.js';
import { eventually, sleep } from '../support/leaks.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { figure, useRig } from './rig.js';

const TTL = 900;
const DRIFT = Math.ceil(TTL * 0.01) + 2;

interface Outcome {
  readonly lost: LockLostError | undefined;
  readonly lostAt: number;
  readonly deadlineAtLoss: number;
  readonly events: Record<string, number>;
}

describe('fault 7: slow Redis', () => {
  const rig = useRig();

  async function proxied(clientId: string): Promise<{ client: LockClient; proxy: TcpProxy; close: () => Promise<void> }> {
    const proxy = await startProxy(rig().locks.port, { seed: rig().seed });
    const redis = lockConnection(proxy.port, { retryMs: 10 });
    const client = createLockClient({ redis, clientId, watchdogTimeoutMs: TTL });
    return {
      client,
      proxy,
      close: async () => {
        proxy.setMode({ type: 'pass' });
        await client.close();
        redis.close();
        await proxy.close();
      },
    };
  }

  /** Holds `name` for `holdMs` (or until lost) and reports what happened. */
  async function hold(client: LockClient, name: string, holdMs: number, during?: () => Promise<void>): Promise<Outcome> {
    const events: Record<string, number> = {};
    const eventSubscription = client.events$.subscribe((event: LockEvent) => (events[event.type] = (events[event.type] ?? 0) + 1));
    let lease: Lease | undefined;
    let outcome: Omit<Outcome, 'events'> | undefined;
    const subscription = client.lock$(name).subscribe({
      next: (value) => (lease = value),
      error: (error: unknown) => (outcome = { lost: error as LockLostError, lostAt: now(), deadlineAtLoss: lease?.deadline ?? NaN }),
    });
    expect(await eventually(() => lease !== undefined || outcome !== undefined, 3 * TTL)).toBe(true);
    const started = performance.now();
    await during?.();
    await eventually(() => outcome !== undefined, holdMs - (performance.now() - started));
    subscription.unsubscribe();
    eventSubscription.unsubscribe();
    return { lost: undefined, lostAt: NaN, deadlineAtLoss: NaN, ...outcome, events };
  }

  it('replies delayed by more than a third of the lease: the lease survives while the deadline allows, errors when it does not', async () => {
    const { admin } = rig();
    // A lease is kept if a renewal sent when the grant arrives is confirmed before the first deadline,
    // that is if a round trip (here: the reply delay) fits in half of TTL - drift. Renewals then go out
    // every TTL/3 and overlap, which a delay below 2/3 TTL - drift sustains.
    const limit = (TTL - DRIFT) / 2;
    const rows: string[] = [];
    for (const share of [0.35, 0.45, 0.6, 0.8]) {
      const delay = Math.round(share * TTL);
      const { client, proxy, close } = await proxied(`slow-${share}`);
      // The connection is up, and the scripts loaded (no NOSCRIPT round trip), before Redis turns slow.
      await client.withLock(`slow-${share}`, () => sleep(TTL / 3 + 50));
      proxy.setMode({ type: 'delay', ms: delay, direction: 'replies' });
      const outcome = await hold(client, `slow-${share}`, 5 * TTL);
      if (delay < limit - 30) {
        expect(outcome.lost).toBeUndefined();
        expect(outcome.events['renewed']).toBeGreaterThanOrEqual(10);
        rows.push(`reply delay ${delay} ms (${share} TTL): held ${5 * TTL} ms, ${outcome.events['renewed']} renewals confirmed`);
      } else if (delay > limit + 30) {
        expect(outcome.lost).toBeInstanceOf(LockLostError);
        expect(outcome.lost!.reason).toBe('unconfirmed');
        // The error comes from the deadline timer: at the deadline, give or take the event loop's lateness (1–2 ms
        // in the runs so far), and long before the next renewal tick (TTL / 3) or the delayed reply would have told.
        // The bound leaves room for a loaded CI machine; that the error precedes the key's expiry under a partition
        // or a pause is asserted in partition.test.ts and pause.test.ts.
        expect(outcome.lostAt - outcome.deadlineAtLoss).toBeGreaterThanOrEqual(0);
        expect(outcome.lostAt - outcome.deadlineAtLoss).toBeLessThan(TTL / 10);
        rows.push(
          `reply delay ${delay} ms (${share} TTL): LockLostError(unconfirmed) ${(outcome.lostAt - outcome.deadlineAtLoss).toFixed(1)} ms after the local deadline`,
        );
      }
      await close();
      // The compensating release (or the normal one) leaves nothing behind.
      expect(await eventually(async () => (await admin.exists(`slow-${share}`)) === 0, 2 * TTL)).toBe(true);
    }
    for (const row of rows) figure('slow', row);
  });

  it('renewals refused while a long script runs (BUSY) are retried: the lease survives a short one and ends at its deadline during a long one', async () => {
    const { admin, locks } = rig();
    await admin.config('SET', 'busy-reply-threshold', '50');
    const blocker = locks.client();
    const spin = (ms: number) =>
      blocker.eval(
        `local s = redis.call('time') local start = s[1] * 1000000 + s[2] while true do local t = redis.call('time') if t[1] * 1000000 + t[2] - start > ${ms * 1000} then break end end return 1`,
        0,
      );
    const client = createLockClient({ redis: lockConnection(locks.port, { retryMs: 10 }), clientId: 'busy', watchdogTimeoutMs: TTL });

    const short = await hold(client, 'busy-short', 3 * TTL, async () => {
      await sleep(100);
      await spin(Math.round(0.5 * TTL));
    });
    expect(short.lost).toBeUndefined();
    expect(short.events['renew-failed']).toBeGreaterThan(0);
    expect(short.events['renewed']).toBeGreaterThan(0);

    const long = await hold(client, 'busy-long', 3 * TTL, async () => {
      await sleep(100);
      await spin(Math.round(1.3 * TTL));
    });
    expect(long.lost).toBeInstanceOf(LockLostError);
    expect(long.lost!.reason).toBe('unconfirmed');
    expect(long.events['renew-failed']).toBeGreaterThan(0);
    await client.close();
    await admin.config('SET', 'busy-reply-threshold', '5000');
    figure(
      'slow',
      `BUSY for ${0.5 * TTL} ms: ${short.events['renew-failed']} renewals refused and retried, lease kept; BUSY for ${1.3 * TTL} ms: LockLostError(unconfirmed) after ${long.events['renew-failed']} refused renewals`,
    );
  });
});
