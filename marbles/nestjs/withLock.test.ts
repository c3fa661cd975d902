import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { concat, finalize, ignoreElements, map, NEVER, Observable, of, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError } from '../../src/index.js';
import { currentLease, RxlockModule, WithLock } from '../../src/nestjs/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/testing.js';
import { createTestScheduler } from '../helpers.js';

/** Methods whose Observables take a lock: each emits `value`, then runs `ms` more before completing. */
@Injectable()
class Work {
  readonly events: string[] = [];

  @WithLock((name: string) => name)
  hold$(name: string, value: string, ms: number): Observable<string> {
    return concat(of(value), timer(ms).pipe(ignoreElements()));
  }

  @WithLock((account: string, region: number) => `${account}:${region}`)
  leaseName$(account: string, region: number): Observable<string | undefined> {
    return of(currentLease()?.name).pipe(map((name) => `${name ?? 'none'} ${account} ${region}`));
  }

  @WithLock('busy', { waitMs: 0 })
  tryOnce$(): Observable<string> {
    return of('in');
  }

  @WithLock((name: string) => name, { leaseMs: 10 })
  fixed$(name: string, store: MemoryStore): Observable<string> {
    return concat(of('a'), NEVER).pipe(
      finalize(() => this.events.push(`torn down with ${store.db.exists(name) === 1 ? 'the lock still in Redis' : 'the lock gone'}`)),
    );
  }

  @WithLock((name: string) => name)
  endless$(name: string, store: MemoryStore): Observable<string> {
    return new Observable<string>((subscriber) => {
      subscriber.next('held');
      return () => this.events.push(`torn down with ${store.db.exists(name) === 1 ? 'the lock still held' : 'the lock released'}`);
    });
  }

  @WithLock((name: string) => name, { kind: 'read' })
  read$(name: string, value: string, ms: number): Observable<string> {
    return concat(of(value), timer(ms).pipe(ignoreElements()));
  }

  @WithLock((name: string) => name, { kind: 'write' })
  write$(name: string, value: string): Observable<string> {
    return of(value);
  }

  @WithLock((name: string) => name, { kind: 'semaphore', permits: 2 })
  permits$(name: string, value: string, ms: number): Observable<string> {
    return concat(of(value), timer(ms).pipe(ignoreElements()));
  }
}

/**
 * One application on a memory store driven by `ts`, compiled before `ts.run()` (Nest's start is promise-based,
 * which virtual time cannot see): the decorated methods' Observables then run in virtual time.
 */
async function application(ts: TestScheduler): Promise<{ app: TestingModule; work: Work; store: MemoryStore }> {
  const store = createMemoryStore({ scheduler: ts, latencyMs: 1 });
  const app = await Test.createTestingModule({
    imports: [RxlockModule.forRoot({ store, scheduler: ts, clientId: 'c1', watchdogTimeoutMs: 30 })],
    providers: [Work],
  }).compile();
  await app.init();
  return { app, work: app.get(Work), store };
}

describe('@WithLock on an Observable method, in virtual time (memory store, 1 ms latency)', () => {
  let app: TestingModule | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('holds the lock for the Observable’s lifetime: released once the work completes, then the next call gets it', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    const { work, store } = setup;
    ts.run(({ expectObservable }) => {
      // granted at 1, the work ends at 5, the release is confirmed at 6
      expectObservable(work.hold$('k', 'x', 4)).toBe('-x 4ms |');
      // waiting since 0, woken by the release: granted one round trip after it
      expectObservable(work.hold$('k', 'y', 0)).toBe('-------y|');
      ts.schedule(() => expect(store.db.exists('k')).toBe(1), 5);
      ts.schedule(() => expect(store.db.exists('k')).toBe(0), 9);
    });
  });

  it('the name function gets the method’s arguments, and the method runs with the lease current', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    ts.run(({ expectObservable }) => {
      // granted at 1, the release after the value confirmed at 2
      expectObservable(setup.work.leaseName$('acct', 7)).toBe('-v|', { v: 'acct:7 acct 7' });
    });
  });

  it('unsubscription tears the work down before the release', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    const { work, store } = setup;
    ts.run(({ expectObservable }) => {
      expectObservable(work.endless$('e', store), '^ 5ms !').toBe('-h', { h: 'held' });
      ts.schedule(() => expect([work.events, store.db.exists('e')]).toEqual([['torn down with the lock still held'], 0]), 10);
    });
  });

  it('waitMs: 0 errors with LockTimeoutError when the lock is taken', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    ts.run(({ expectObservable }) => {
      expectObservable(setup.work.hold$('busy', 'x', 5)).toBe('-x 5ms |');
      expectObservable(setup.work.tryOnce$()).toBe('-#', undefined, new LockTimeoutError('busy', 0));
    });
  });

  it('a lost lock errors the stream with LockLostError and tears the work down', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    const { work, store } = setup;
    ts.run(({ expectObservable }) => {
      // granted at 1 (sent at 0) for 10 ms, less the drift allowance (2.1 ms): no longer trusted after 7.9
      expectObservable(work.fixed$('f', store)).toBe('-a 5ms #', undefined, new LockLostError('f', '#1', 'expired'));
      ts.schedule(() => expect(work.events).toEqual(['torn down with the lock still in Redis']), 8);
    });
  });

  it('kind read lets readers share and makes the writer wait; kind semaphore takes its permits', async () => {
    const ts = createTestScheduler();
    const setup = await application(ts);
    app = setup.app;
    const { work, store } = setup;
    store.db.set('pool', '3');
    ts.run(({ expectObservable }) => {
      expectObservable(work.read$('rw', 'r1', 4)).toBe('-a 4ms |', { a: 'r1' });
      expectObservable(work.read$('rw', 'r2', 2)).toBe('-a 2ms |', { a: 'r2' });
      // the readers' releases are confirmed at 4 and 6; the writer, waiting since 0, is granted two round trips later
      expectObservable(work.write$('rw', 'w')).toBe('--------w|');
      // 3 permits: the first call takes 2 until its release at 5; the second, woken then, is granted at 7
      expectObservable(work.permits$('pool', 'p1', 3)).toBe('-a 3ms |', { a: 'p1' });
      expectObservable(work.permits$('pool', 'p2', 0)).toBe('-------a|', { a: 'p2' });
      ts.schedule(() => expect(store.db.get('pool')).toBe('1'), 3);
    });
  });
});
