import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { spawnLeaderProcess, type LeaderMessage } from './support/leaderProcess.js';

const WATCHDOG_MS = 1_500;

interface Tick {
  readonly instance: string;
  readonly job: 'interval' | 'cron';
  readonly at: number;
}

describe('@OnLeader @Interval and @Cron jobs across processes: failover after SIGKILL, hand-over on SIGTERM', () => {
  const server = redisServerForSuite();
  let admin: Redis;
  const processes = new Map<string, { child: ChildProcess; stderr: () => string }>();

  beforeAll(async () => {
    admin = server.client();
    await admin.ping();
  });
  afterAll(() => {
    for (const { child } of processes.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
    return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /**
   * What a process printed to stderr, less the `cron` package's notices that a tick came late (a busy machine
   * delays timers; the job still runs): anything else is an error of the process's own.
   */
  const errorsOf = (stderr: string): string => stderr.replace(/^\[Cron\] Missed execution deadline by \d+ms [^\n]*\. Executing immediately\.\n/gm, '');

  /** The instances that ticked after `from`. */
  const tickersSince = (ticks: readonly Tick[], from: number): Set<string> => new Set(ticks.filter((tick) => tick.at > from).map((tick) => tick.instance));

  it('the jobs run on exactly one of three instances, move within the lease after SIGKILL, and at once after SIGTERM', async () => {
    const ticks: Tick[] = [];
    const ready = new Set<string>();
    for (const instance of ['p1', 'p2', 'p3']) {
      const spawned = spawnLeaderProcess({ instance, redisPort: server.port, watchdogTimeoutMs: WATCHDOG_MS });
      spawned.child.on('message', (message: LeaderMessage) => {
        if (message.type === 'ready') ready.add(message.instance);
        else ticks.push({ instance: message.instance, job: message.job, at: performance.now() });
      });
      processes.set(instance, spawned);
    }
    // Three processes compiling the sources through tsx and loading Nest: slow on a busy machine.
    expect(await eventually(() => ready.size === 3, 60_000)).toBe(true);
    const allReady = performance.now();
    // Both jobs ran (the cron job fires every second), and for at least half a second after all three run: on one instance only.
    const cronSince = (from: number) => ticks.some((tick) => tick.job === 'cron' && tick.at > from);
    expect(await eventually(() => cronSince(allReady), 3_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const leaders = tickersSince(ticks, allReady);
    expect(leaders.size).toBe(1);
    const [first] = [...leaders];

    const killedAt = performance.now();
    processes.get(first!)!.child.kill('SIGKILL');
    await exited(processes.get(first!)!.child);
    // Ticks are timed when their message arrives here: one the leader sent just before the kill may arrive after it.
    const takenOver = (tick: Tick) => tick.at > killedAt && tick.instance !== first;
    expect(await eventually(() => ticks.some(takenOver), WATCHDOG_MS * 3)).toBe(true);
    const takeover = ticks.find(takenOver)!;
    // The dead leader's lease runs out within WATCHDOG_MS; the waiters try again then.
    const failoverMs = takeover.at - killedAt;
    expect(failoverMs).toBeLessThan(WATCHDOG_MS + 1_000);
    console.info(`failover after SIGKILL: ${failoverMs.toFixed(0)} ms (lease ${WATCHDOG_MS} ms)`);
    // The cron job moved with it (within its one-second schedule), and nothing else ran anywhere else.
    expect(await eventually(() => cronSince(takeover.at), 3_000)).toBe(true);
    expect(tickersSince(ticks, takeover.at)).toEqual(new Set([takeover.instance]));

    // A graceful shutdown releases leadership: the last instance takes over long before the lease would run out.
    const second = processes.get(takeover.instance)!;
    const stoppedAt = performance.now();
    second.child.kill('SIGTERM');
    const [last] = ['p1', 'p2', 'p3'].filter((instance) => instance !== first && instance !== takeover.instance);
    expect(await eventually(() => ticks.some((tick) => tick.at > stoppedAt && tick.instance === last), WATCHDOG_MS * 3)).toBe(true);
    const handOverMs = ticks.find((tick) => tick.at > stoppedAt && tick.instance === last)!.at - stoppedAt;
    expect(handOverMs).toBeLessThan(WATCHDOG_MS / 2);
    console.info(`hand-over after SIGTERM: ${handOverMs.toFixed(0)} ms`);
    // Nest re-raises the signal after its shutdown hooks: the process ends by SIGTERM, having printed nothing.
    expect(await exited(second.child)).toEqual({ code: null, signal: 'SIGTERM' });
    expect(errorsOf(second.stderr())).toBe('');

    const third = processes.get(last!)!;
    third.child.kill('SIGTERM');
    expect(await exited(third.child)).toEqual({ code: null, signal: 'SIGTERM' });
    expect(errorsOf(third.stderr())).toBe('');
    // Every lock was released (the killed leader's by expiry, long ago) and every connection closed.
    expect(await admin.keys('*')).toEqual([]);
    expect(await admin.pubsub('CHANNELS')).toEqual([]);
    expect(
      await eventually(
        async () =>
          String(await admin.call('CLIENT', 'LIST'))
            .trim()
            .split('\n').length === 1,
      ),
    ).toBe(true);
  }, 120_000);
});
