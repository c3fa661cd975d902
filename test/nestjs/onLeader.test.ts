import { Inject, Injectable } from '@nestjs/common';
import { Cron, Interval, ScheduleModule, Timeout } from '@nestjs/schedule';
import type { TestingModule } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { currentLease, OnLeader, RxlockRuntime } from '../../src/nestjs/index.js';
import { activeTimers, eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { startApp } from './support/apps.js';

const APP = Symbol('app name');

/** What ran, where, and whether it ran inside a current term. */
interface Run {
  readonly app: string;
  readonly job: string;
  readonly at: number;
  readonly held: boolean | undefined;
}

const runs: Run[] = [];

/** Every kind of @nestjs/schedule job, with @OnLeader below and above the scheduling decorator. */
@Injectable()
class Jobs {
  constructor(@Inject(APP) private readonly app: string) {}

  #ran(job: string): void {
    runs.push({ app: this.app, job, at: performance.now(), held: currentLease()?.held });
  }

  @Interval(20)
  @OnLeader('jobs')
  intervalAbove(): void {
    this.#ran('interval, @Interval above');
  }

  @OnLeader('jobs')
  @Interval(20)
  intervalBelow(): void {
    this.#ran('interval, @Interval below');
  }

  @Cron('* * * * * *')
  @OnLeader('jobs')
  async cronAbove(): Promise<void> {
    await sleep(1);
    this.#ran('cron, @Cron above');
  }

  @OnLeader('jobs')
  @Cron('* * * * * *')
  cronBelow(): void {
    this.#ran('cron, @Cron below');
  }

  @Timeout(1_500)
  @OnLeader('jobs')
  timeoutAbove(): void {
    this.#ran('timeout, @Timeout above');
  }

  @OnLeader('jobs')
  @Timeout(1_500)
  timeoutBelow(): void {
    this.#ran('timeout, @Timeout below');
  }

  @OnLeader('jobs')
  async direct(): Promise<string> {
    await sleep(1);
    return this.app;
  }
}

const JOBS = [
  'interval, @Interval above',
  'interval, @Interval below',
  'cron, @Cron above',
  'cron, @Cron below',
  'timeout, @Timeout above',
  'timeout, @Timeout below',
];

describe('@OnLeader with @nestjs/schedule: three applications, one leader', () => {
  const server = redisServerForSuite();
  let data: Redis;
  let apps: TestingModule[] = [];
  let timersBefore = 0;

  beforeAll(async () => {
    data = server.client();
    await data.ping();
    timersBefore = activeTimers();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
    runs.length = 0;
  });
  afterAll(async () => {
    expect(await eventually(async () => (await data.keys('*')).length === 0, 1_000)).toBe(true);
    expect(await data.pubsub('CHANNELS')).toEqual([]);
    expect(await eventually(() => activeTimers() <= timersBefore, 2_000)).toBe(true);
  });

  const appNamed = (app: string): Promise<TestingModule> =>
    startApp({ redis: server.client(), clientId: app, watchdogTimeoutMs: 5_000 }, data, {
      imports: [ScheduleModule.forRoot()],
      providers: [Jobs, { provide: APP, useValue: app }],
    });

  /**
   * `a` first, leading before the others start: a `@Timeout` runs only where leadership was won before it fired,
   * which a busy machine could otherwise delay past it on every instance.
   */
  async function threeApps(): Promise<TestingModule[]> {
    const a = await appNamed('a');
    apps = [a];
    expect(await eventually(() => a.get(RxlockRuntime).isLeader('jobs'))).toBe(true);
    apps.push(...(await Promise.all([appNamed('b'), appNamed('c')])));
    return apps;
  }

  it('every job runs on the leader only, in either decorator order, within its term; the leader hands over at once on close', async () => {
    const started = await threeApps();
    // Long enough for a cron second to pass and the timeouts to fire.
    expect(await eventually(() => JOBS.every((job) => runs.some((run) => run.job === job)), 5_000)).toBe(true);
    const leaders = new Set(runs.map((run) => run.app));
    expect(leaders.size).toBe(1);
    const [leader] = [...leaders];
    expect(runs.every((run) => run.held === true)).toBe(true);
    expect(runs.filter((run) => run.job.startsWith('timeout'))).toHaveLength(2);
    const runtimes = started.map((app) => app.get(RxlockRuntime));
    expect(runtimes.map((runtime) => runtime.isLeader('jobs'))).toEqual(['a', 'b', 'c'].map((app) => app === leader));

    const leaderIndex = ['a', 'b', 'c'].indexOf(leader!);
    const closedAt = performance.now();
    await started[leaderIndex]!.close();
    apps = started.filter((_, i) => i !== leaderIndex);
    expect(await eventually(() => runs.some((run) => run.app !== leader && run.job.startsWith('interval')), 2_000)).toBe(true);
    const takeover = runs.find((run) => run.app !== leader && run.job.startsWith('interval'))!;
    // Released on close, not left to expire: far sooner than the 5 s lease.
    expect(takeover.at - closedAt).toBeLessThan(2_000);
    // The next run after the takeover comes an interval later: wait for it, then every run since is the new leader's.
    expect(await eventually(() => runs.some((run) => run.at > takeover.at), 2_000)).toBe(true);
    const after = runs.filter((run) => run.at > takeover.at);
    expect(new Set(after.map((run) => run.app))).toEqual(new Set([takeover.app]));
  });

  it('a call on an instance that does not lead does nothing and returns undefined (a resolved undefined when async)', async () => {
    const started = await threeApps();
    expect(await eventually(() => started.some((app) => app.get(RxlockRuntime).isLeader('jobs')))).toBe(true);
    const results = await Promise.all(started.map((app) => app.get(Jobs).direct()));
    const leader = ['a', 'b', 'c'].find((_, i) => started[i]!.get(RxlockRuntime).isLeader('jobs'));
    expect(results).toEqual(['a', 'b', 'c'].map((app) => (app === leader ? app : undefined)));
  });
});
