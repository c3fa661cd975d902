import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLockClient } from '../../src/index.js';
import { eventually, sleep } from '../support/leaks.js';
import { startRedis } from '../support/redisServer.js';
import { startProxy } from '../support/proxy.js';
import { figure, useRig } from './rig.js';

const PAUSED_HOLDER = fileURLToPath(new URL('../support/probes/pausedHolder.ts', import.meta.url));
const WATCHDOG_MS = 1_000;

interface ProbeLine {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** A probe process and the JSON lines it printed so far. */
function startProbe(script: string, args: readonly string[]): { child: ChildProcess; lines: ProbeLine[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: ProbeLine[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, end)) as ProbeLine);
      buffer = buffer.slice(end + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, lines, exited };
}

describe('fault: a holder process paused past its lease (issue 41, items 1 and 2)', () => {
  const rig = useRig();

  it('withLock rejects with LockLostError after SIGCONT, no step runs with the stale lease, and the new holder’s token is newer', async () => {
    const { locks } = rig();
    const trials: number[] = [];
    for (let trial = 0; trial < 3; trial++) {
      const name = `paused-${String(trial)}`;
      const probe = startProbe(PAUSED_HOLDER, [String(locks.port), String(WATCHDOG_MS), name]);
      expect(await eventually(() => probe.lines.some((line) => line.type === 'step'), 15_000)).toBe(true);
      probe.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // Another client takes the lock once the paused holder's key expired, and writes with its newer token.
      const redis = new Redis({ port: locks.port, host: '127.0.0.1' });
      const other = createLockClient({ redis, clientId: 'other' });
      const token = await other.withLock(name, (lease) => lease.token, { fencing: true, waitMs: 5_000 });
      await sleep(Math.max(0, stoppedAt + 1_600 - Date.now()));
      const resumedAt = Date.now();
      probe.child.kill('SIGCONT');
      expect(await probe.exited).toBe(0);
      const outcome = probe.lines.find((line) => line.type === 'outcome');
      expect(outcome).toMatchObject({ settled: 'rejected', error: 'LockLostError' });
      // The worker checked lease.signal before each step: not one step ran after the resume.
      expect(probe.lines.filter((line) => line.type === 'step' && (line.at as number) >= resumedAt)).toEqual([]);
      const held = probe.lines.find((line) => line.type === 'held');
      expect(token).toBeGreaterThan(held?.token as number);
      trials.push((outcome?.at as number) - resumedAt);
      await other.close();
      redis.disconnect();
    }
    figure('paused holder', `withLock rejected with LockLostError ${trials.map((ms) => `${String(ms)} ms`).join(', ')} after SIGCONT; 0 stale steps`);
  });
});

const WAITING_PROBE = fileURLToPath(new URL('../support/probes/waitingProbe.ts', import.meta.url));

describe('fault: a hand-off to a waiter process that is frozen (issue 41, item 3)', () => {
  const rig = useRig();

  for (const kind of ['lock', 'fair'] as const) {
    it(`${kind}: the next live waiter gets the lock within the confirmation window, not after a lease`, async () => {
      const { locks, admin } = rig();
      const waits: number[] = [];
      for (let trial = 0; trial < 3; trial++) {
        const name = `parked-${kind}-${String(trial)}`;
        const holder = createLockClient({ redis: locks.client(), clientId: `holder${String(trial)}` });
        const live = createLockClient({ redis: locks.client(), clientId: `live${String(trial)}` });
        const take = (client: typeof holder) => (kind === 'fair' ? client.fairLock$(name) : client.lock$(name));
        const held = await new Promise<{ unsubscribe(): void }>((resolve) => {
          const subscription = take(holder).subscribe({ next: () => resolve(subscription) });
        });
        const probe = startProbe(WAITING_PROBE, [String(locks.port), name, kind]);
        const queue = kind === 'fair' ? `redisson_lock_queue:{${name}}` : `rxlock_waiters:{${name}}`;
        const queued = async (count: number) => (kind === 'fair' ? await admin.llen(queue) : await admin.zcard(queue)) === count;
        expect(await eventually(() => queued(1), 15_000)).toBe(true);
        // Its client listens: a release will hand it the lock directly.
        expect(await eventually(async () => (await admin.pubsub('CHANNELS', `redisson_lock__channel:{${name}}:frozen*`)).length > 0, 5_000)).toBe(true);
        let liveAt = 0;
        const liveWait = take(live).subscribe({ next: () => (liveAt = Date.now()) });
        expect(await eventually(() => queued(2), 5_000)).toBe(true);
        probe.child.kill('SIGSTOP');
        const releasedAt = Date.now();
        held.unsubscribe();
        expect(await eventually(() => liveAt > 0, 5_000)).toBe(true);
        waits.push(liveAt - releasedAt);
        liveWait.unsubscribe();
        probe.child.kill('SIGKILL');
        await probe.exited;
        await Promise.all([holder.close(), live.close()]);
        // The frozen waiter's queue entry ages out by itself; the rig checks nothing else is left.
        await admin.del(queue, `rxlock_fair_waiters:{${name}}`, `redisson_lock_timeout:{${name}}`);
      }
      // Ten hand-off windows of 100 ms; far under the 30 s lease the hand-off used to park.
      for (const wait of waits) expect(wait).toBeLessThan(2_500);
      figure(`hand-off to a frozen ${kind} waiter`, `the next live waiter held the lock ${waits.map((ms) => `${String(ms)} ms`).join(', ')} after the release`);
    });
  }
});

describe('fault: a Redis restart without persistence, with restartGuardMs (issue 41, item 10)', () => {
  const rig = useRig();

  /** Three clients loop withLock on one name; counts sections that overlapped, and when the first grant after the restart came. */
  async function contendAcrossRestart(restartGuardMs: number): Promise<{ overlaps: number; waitAfterRestartMs: number; sections: number }> {
    const { locks } = rig();
    const clients = Array.from({ length: 3 }, (_, i) =>
      createLockClient({ redis: locks.client({ retryStrategy: () => 20 }), clientId: `c${String(i)}`, watchdogTimeoutMs: 3_000, restartGuardMs }),
    );
    let inside = 0;
    let overlaps = 0;
    let sections = 0;
    let restartedAt = Infinity;
    let firstGrantAfter = Infinity;
    let running = true;
    const loops = clients.map(async (client) => {
      while (running) {
        await client
          .withLock('restarted', async () => {
            if (Date.now() >= restartedAt) firstGrantAfter = Math.min(firstGrantAfter, Date.now());
            if (++inside > 1) overlaps++;
            sections++;
            // Far longer than a reconnect: a second holder let in at once would find the first still inside.
            await sleep(2_000);
            inside--;
          })
          .catch(() => undefined);
      }
    });
    await sleep(restartGuardMs + 1_500);
    restartedAt = Date.now();
    await locks.restart();
    await sleep(restartGuardMs + 2_000);
    running = false;
    await Promise.all(loops);
    await Promise.all(clients.map((client) => client.close()));
    return { overlaps, sections, waitAfterRestartMs: firstGrantAfter - restartedAt };
  }

  it('no two holders overlap across the restart, and the first grant after it waits until the server has been up restartGuardMs', async () => {
    const { overlaps, sections, waitAfterRestartMs } = await contendAcrossRestart(3_000);
    expect(sections).toBeGreaterThanOrEqual(3);
    expect(overlaps).toBe(0);
    expect(waitAfterRestartMs).toBeGreaterThanOrEqual(2_900);
    figure('restart with restartGuardMs 3000', `0 overlaps in ${String(sections)} sections; first grant ${String(waitAfterRestartMs)} ms after the restart`);
  });

  it('control: without the guard, the same restart lets a second holder in while the first still works', async () => {
    // Whether the restart falls inside a section is a matter of timing: up to three restarts, until one overlaps.
    let overlaps = 0;
    for (let restart = 0; restart < 3 && overlaps === 0; restart++) overlaps += (await contendAcrossRestart(0)).overlaps;
    expect(overlaps).toBeGreaterThan(0);
  });
});

const EXIT_PROBE = fileURLToPath(new URL('../support/probes/exitProbe.ts', import.meta.url));

describe('fault: Redis unreachable, a partition at close(), a program that ends (issue 41, items 4, 5 and 6)', () => {
  const rig = useRig();

  it('an acquisition with nothing listening fails with LockBackendError("unavailable") within 1.25 × commandTimeoutMs', async () => {
    // A server of its own, which goes away for good.
    const locks = await startRedis();
    const redis = new Redis({ port: locks.port, host: '127.0.0.1', retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    const client = createLockClient({ redis, commandTimeoutMs: 1_000 });
    await client.withLock('warm', () => undefined);
    // The server goes away for good: nothing listens at its address any more.
    await locks.stop();
    const startedAt = Date.now();
    const error = await client
      .withLock('x', () => 'never')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const failedAfter = Date.now() - startedAt;
    expect(error).toMatchObject({ name: 'LockBackendError', code: 'unavailable' });
    expect(failedAfter).toBeLessThan(2_500);
    const closeStarted = Date.now();
    await client.close();
    expect(Date.now() - closeStarted).toBeLessThan(150);
    redis.disconnect();
    figure(
      'unreachable Redis',
      `withLock failed with LockBackendError after ${String(failedAfter)} ms (commandTimeoutMs 1000); close() took ${String(Date.now() - closeStarted)} ms`,
    );
  });

  it('close() behind a partition resolves within the longest remaining lease plus 1.25 × commandTimeoutMs', async () => {
    const { locks } = rig();
    const proxy = await startProxy(locks.port);
    const redis = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 10, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const client = createLockClient({ redis, commandTimeoutMs: 500, watchdogTimeoutMs: 2_000 });
    const held = await Promise.all([client.acquire('p1'), client.acquire('p2'), client.acquire('p3', { leaseMs: 1_500 })]);
    const latestDeadline = Math.max(...held.map((lease) => lease.deadline));
    proxy.setMode({ type: 'blackhole' });
    const startedAt = performance.timeOrigin + performance.now();
    await client.close();
    const tookMs = performance.timeOrigin + performance.now() - startedAt;
    const bound = Math.max(0, latestDeadline - startedAt) + 1.25 * 500;
    expect(tookMs).toBeLessThanOrEqual(bound + 100);
    proxy.setMode({ type: 'pass' });
    redis.disconnect();
    await proxy.close();
    // The keys expire by their TTL: nobody could release them.
    await sleep(2_100);
    figure('close() behind a partition', `${tookMs.toFixed(0)} ms (bound ${bound.toFixed(0)} ms: the longest remaining lease + 1.25 × commandTimeoutMs)`);
  });

  it('a program whose work is done exits by itself after its own Redis client quit, without close()', async () => {
    const { locks } = rig();
    for (const scenario of ['uncontended', 'contended', 'timeout']) {
      const probe = spawn(process.execPath, ['--import', 'tsx', EXIT_PROBE, String(locks.port), scenario], { stdio: 'ignore' });
      const killer = setTimeout(() => probe.kill('SIGKILL'), 15_000);
      const code = await new Promise((resolve) => probe.on('exit', (exitCode) => resolve(exitCode ?? 'killed: still running after 15 s')));
      clearTimeout(killer);
      expect({ scenario, code }).toEqual({ scenario, code: 0 });
    }
  });
});
