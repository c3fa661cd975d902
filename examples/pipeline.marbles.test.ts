// A marble test of your own pipeline, in virtual time: no Redis, no waiting. `refreshPrices` stands for code of
// yours that takes a lock; each test below drives it through one situation — contention, a timeout, renewals
// during long work, a lost lock — with `createMemoryStore` (Redis semantics on the test scheduler's clock) and
// `createTestScheduler` (a TestScheduler that stops with an error instead of spinning on a stream that never
// ends). Run it with `npx vitest run examples/pipeline.marbles.test.ts`.
import { catchError, of, type Observable } from 'rxjs';
import { createLockClient, LockLostError, LockTimeoutError, type LockClient } from 'rxlock';
import { createMemoryStore, createTestScheduler } from 'rxlock/testing';
import { describe, expect, it } from 'vitest';

/** Your code: refreshes the price cache on one instance at a time, and says how each attempt ended. */
function refreshPrices(locks: LockClient, fetchPrices: () => Observable<string>): Observable<string> {
  return locks
    .withLock$('prices', () => fetchPrices(), { waitMs: 50 })
    .pipe(
      catchError((error: unknown) => {
        if (error instanceof LockTimeoutError) return of('skipped: busy');
        if (error instanceof LockLostError) return of(`aborted: ${error.reason}`);
        throw error;
      }),
    );
}

describe('refreshPrices', () => {
  it('runs two instances one after the other', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const store = createMemoryStore({ scheduler, latencyMs: 1 });
      const a = createLockClient({ store, scheduler, clientId: 'a' });
      const b = createLockClient({ store, scheduler, clientId: 'b' });
      const fetchPrices = (label: string) => () => cold('10ms (p|)', { p: label });
      // a holds from 1 ms and fetches for 10 ms; its release at 12 ms hands the lock to b, which fetches next.
      expectObservable(refreshPrices(a, fetchPrices('a'))).toBe('11ms a |');
      expectObservable(refreshPrices(b, fetchPrices('b'))).toBe('23ms b |');
    });
  });

  it('gives up when another instance holds the lock for too long', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const store = createMemoryStore({ scheduler, latencyMs: 1 });
      const a = createLockClient({ store, scheduler, clientId: 'a' });
      const b = createLockClient({ store, scheduler, clientId: 'b' });
      expectObservable(refreshPrices(a, () => cold('100ms (p|)', { p: 'prices' }))).toBe('101ms p |', { p: 'prices' });
      // b's waitMs of 50 ms runs out while a still fetches.
      expectObservable(refreshPrices(b, () => cold('(p|)', { p: 'never' }))).toBe('50ms (s|)', { s: 'skipped: busy' });
    });
  });

  it('keeps the lock through renewals while a long fetch runs', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const store = createMemoryStore({ scheduler, latencyMs: 1 });
      // A 30 ms watchdog: the lock is renewed every 10 ms, well inside the 100 ms fetch.
      const a = createLockClient({ store, scheduler, clientId: 'a', watchdogTimeoutMs: 30 });
      const renewals: number[] = [];
      a.events$.subscribe((event) => {
        if (event.type === 'renewed') renewals.push(scheduler.now());
      });
      expectObservable(refreshPrices(a, () => cold('100ms (p|)', { p: 'prices' }))).toBe('101ms p |', { p: 'prices' });
      scheduler.schedule(() => expect(renewals).toEqual([12, 22, 32, 42, 52, 62, 72, 82, 92]), 200);
    });
  });

  it('aborts the fetch when the lock is lost', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const store = createMemoryStore({ scheduler, latencyMs: 1 });
      const a = createLockClient({ store, scheduler, clientId: 'a', watchdogTimeoutMs: 30 });
      // Redis stops answering at 5 ms: no renewal is confirmed, and the lease ends at its deadline.
      cold('5ms x').subscribe(() => store.setFault('blackhole'));
      expectObservable(refreshPrices(a, () => cold('100ms (p|)', { p: 'prices' }))).toBe('27ms (l|)', { l: 'aborted: unconfirmed' });
    });
  });
});
