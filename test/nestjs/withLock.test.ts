import { Inject, Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import type { Redis } from 'ioredis';
import { defer, delay, from, map, Observable, switchMap } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../../src/index.js';
import { currentLease, WithLock } from '../../src/nestjs/index.js';
import { activeTimers, eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { DATA, startApp } from './support/apps.js';

/** A read-modify-write of a counter in Redis, with a gap between the read and the write where updates get lost. */
@Injectable()
class Counter {
  constructor(@Inject(DATA) private readonly redis: Redis) {}

  async unlocked(key: string): Promise<number> {
    const value = Number((await this.redis.get(key)) ?? 0);
    await sleep(2);
    await this.redis.set(key, value + 1);
    return value + 1;
  }

  @WithLock((key: string) => `counter:${key}`)
  async increment(key: string): Promise<number> {
    return this.unlocked(key);
  }

  @WithLock((key: string) => `counter:${key}`)
  increment$(key: string): Observable<number> {
    return defer(() => from(this.redis.get(key))).pipe(
      delay(2),
      switchMap((value) => from(this.redis.set(key, Number(value ?? 0) + 1)).pipe(map(() => Number(value ?? 0) + 1))),
    );
  }

  @WithLock('counter:busy', { waitMs: 0 })
  async busy(ms: number): Promise<boolean | undefined> {
    await sleep(ms);
    return currentLease()?.held;
  }
}

describe('@WithLock on real Redis: two applications contending for one method', () => {
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
    await data.del('count', 'count$');
  });
  afterAll(async () => {
    // Closing both applications released every lock and closed the connections and timers their clients opened.
    expect(await eventually(async () => (await data.keys('*')).length === 0, 1_000)).toBe(true);
    expect(await data.pubsub('CHANNELS')).toEqual([]);
    expect(await eventually(() => activeTimers() <= timersBefore, 2_000)).toBe(true);
  });

  async function twoApps(): Promise<[Counter, Counter]> {
    apps = await Promise.all([1, 2].map((i) => startApp({ redis: server.client(), clientId: `app${i}` }, data, { providers: [Counter] })));
    return [apps[0]!.get(Counter), apps[1]!.get(Counter)];
  }

  it('without the lock the same calls lose updates (the control)', async () => {
    const [a, b] = await twoApps();
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).unlocked('count')));
    expect(Number(await data.get('count'))).toBeLessThan(20);
  });

  it('async method: 40 calls from two applications lose no update', async () => {
    const [a, b] = await twoApps();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).increment('count')));
    expect(Number(await data.get('count'))).toBe(40);
    expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('Observable method: 40 subscriptions from two applications lose no update', async () => {
    const [a, b] = await twoApps();
    const results = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) =>
          new Promise<number>((resolve, reject) => {
            (i % 2 === 0 ? a : b).increment$('count$').subscribe({ next: resolve, error: reject });
          }),
      ),
    );
    expect(Number(await data.get('count$'))).toBe(40);
    expect(new Set(results).size).toBe(40);
  });

  it('waitMs: 0 fails the loser with LockTimeoutError while the winner runs with its lease current', async () => {
    const [a, b] = await twoApps();
    const winner = a.busy(200);
    await eventually(async () => (await data.exists('counter:busy')) === 1);
    await expect(b.busy(0)).rejects.toBeInstanceOf(LockTimeoutError);
    await expect(winner).resolves.toBe(true);
    expect(await data.exists('counter:busy')).toBe(0);
  });
});
