import { describe, expect, it } from 'vitest';
import { lockAcquireScript } from '../../src/primitives/lock/acquireScript.js';
import { lockReleaseScript } from '../../src/primitives/lock/releaseScript.js';
import { lockRenewScript } from '../../src/primitives/lock/renewScript.js';
import { checkHistory, seededRandom, summary, violations, type SectionRecord } from '../support/checker.js';
import { sleep } from '../support/leaks.js';
import { startProxy, type TcpProxy } from '../support/proxy.js';
import { spawnWorker, type Worker, type WorkerConfig, type WorkerStats } from '../support/workerProcess.js';
import { figure, useRig } from './rig.js';

const TTL = 600;
const TARGET_SECTIONS = 10_000;
const SCRIPTS = [lockAcquireScript.sha1, lockRenewScript.sha1, lockReleaseScript.sha1];

type Fault = 'pause' | 'partition' | 'slow' | 'lost-replies' | 'pubsub-kill' | 'script-flush' | 'crash';
const FAULTS: readonly Fault[] = ['pause', 'partition', 'slow', 'lost-replies', 'pubsub-kill', 'script-flush', 'crash'];

describe('mixed soak: 16 clients in two processes, faults at random moments', () => {
  const rig = useRig();

  it(`${TARGET_SECTIONS} critical sections or more, and the checker finds nothing`, async () => {
    const current = rig();
    const { seed, locks, admin, resource, resourceServer } = current;
    const random = seededRandom(seed);
    const proxies: TcpProxy[] = await Promise.all([0, 1].map((i) => startProxy(locks.port, { seed: seed + i })));
    const config = (name: string, slot: number): WorkerConfig => ({
      name,
      mode: 'loop',
      redisPort: proxies[slot]!.port,
      resourcePort: resourceServer.port,
      seed: seed + name.length * 7919 + slot,
      clients: 8,
      locks: ['s1', 's2', 's3', 's4', 's5', 's6'],
      watchdogTimeoutMs: TTL,
      workMs: [0, 4],
      // Some sections outlast a lease; half of those ignore the loss and write anyway (zombies).
      longWork: { chance: 0.02, ms: 1_000 },
    });
    const slots: Worker[] = await Promise.all([spawnWorker(config('w1', 0)), spawnWorker(config('w2', 1))]);
    const retired: Worker[] = [];
    const injected: Record<Fault, number> = { pause: 0, partition: 0, slow: 0, 'lost-replies': 0, 'pubsub-kill': 0, 'script-flush': 0, crash: 0 };
    const started = performance.now();
    const sectionCount = () => [...slots, ...retired].reduce((sum, worker) => sum + worker.sections.length, 0);
    let generation = 2;

    while (sectionCount() < TARGET_SECTIONS) {
      await sleep(500 + Math.floor(random() * 1_500));
      const fault = FAULTS[Math.floor(random() * FAULTS.length)]!;
      const slot = Math.floor(random() * slots.length);
      injected[fault]++;
      switch (fault) {
        case 'pause':
          locks.signal('SIGSTOP');
          await sleep(Math.floor(TTL * (0.5 + 1.5 * random())));
          locks.signal('SIGCONT');
          break;
        case 'partition':
          proxies[slot]!.setMode({ type: 'blackhole' });
          await sleep(Math.floor(TTL * (0.5 + 1.5 * random())));
          proxies[slot]!.setMode({ type: 'pass' });
          break;
        case 'slow':
          proxies[slot]!.setMode({ type: 'delay', ms: Math.floor(TTL * 0.5 * random()), jitterMs: 20, direction: 'replies' });
          await sleep(1_000 + Math.floor(random() * 1_000));
          proxies[slot]!.setMode({ type: 'pass' });
          break;
        case 'lost-replies':
          if (random() < 0.5) {
            // The next five lock scripts of one process lose their replies.
            void proxies[slot]!.dropRepliesTo((request) => SCRIPTS.some((sha) => request.includes(sha)), 5);
            await sleep(500);
            proxies[slot]!.disarm();
          } else {
            // For 100 ms every reply to that process is lost, pub/sub included.
            proxies[slot]!.setMode({ type: 'reply-drop' });
            await sleep(100);
            proxies[slot]!.setMode({ type: 'pass' });
          }
          break;
        case 'pubsub-kill':
          await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
          break;
        case 'script-flush':
          await admin.script('FLUSH');
          break;
        case 'crash': {
          const victim = slots[slot]!;
          await victim.kill();
          retired.push(victim);
          slots[slot] = await spawnWorker(config(`w${++generation}`, slot));
          break;
        }
      }
    }

    const stats: WorkerStats[] = await Promise.all(slots.map((worker) => worker.stop()));
    const elapsed = (performance.now() - started) / 1_000;
    const workers = [...slots, ...retired];
    const sections: SectionRecord[] = workers.flatMap((worker) => worker.sections);
    const errors = workers.flatMap((worker) => worker.messages.flatMap((m) => (m.type === 'error' ? [`${m.holder} ${m.lock}: ${m.error}`] : [])));
    const report = checkHistory(sections, await resource.writes());
    await Promise.all(proxies.map((proxy) => proxy.close()));

    expect(errors).toEqual([]);
    expect(report.sections).toBeGreaterThanOrEqual(TARGET_SECTIONS);
    expect(violations(report)).toEqual([]);
    expect(report.unfinished).toEqual([]);
    const lost = sections.filter((section) => section.outcome === 'lost').length;
    const crashed = sections.filter((section) => section.outcome === 'crashed').length;
    figure(
      'soak',
      `${elapsed.toFixed(0)} s, 16 clients in 2 processes (${workers.length} processes over the run); faults: ${Object.entries(injected)
        .map(([fault, count]) => `${fault} ${count}`)
        .join(', ')}`,
    );
    figure('soak', `${summary(report)}; lost ${lost}, crashed ${crashed}, stale writes rejected by the fence ${report.rejected}`);
    figure(
      'soak',
      `renew-failed events ${stats.reduce((sum, s) => sum + (s.events['renew-failed'] ?? 0), 0)}, release-failed ${stats.reduce((sum, s) => sum + (s.events['release-failed'] ?? 0), 0)} (surviving processes)`,
    );
  });
});
