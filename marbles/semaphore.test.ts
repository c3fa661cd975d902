import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../src/index.js';
import { semaphoreAcquireScript } from '../src/primitives/semaphore/acquireScript.js';
import { addPermitsScript } from '../src/primitives/semaphore/adminScripts.js';
import { semaphoreReleaseScript } from '../src/primitives/semaphore/releaseScript.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('semaphore(name).acquire$ in virtual time (memory store, 1 ms latency)', () => {
  it('acquire$(4) on 5 permits with 3 taken waits until two are released, then holds', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 4);
      const [a, b, c, big] = clients;
      store.db.set('pool', '5');
      expectObservable(
        a!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'a')),
        '^ 9ms !',
      ).toBe('-a');
      expectObservable(
        b!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'b')),
        '^ 19ms !',
      ).toBe('-b');
      expectObservable(
        c!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'c')),
        '^ 60ms !',
      ).toBe('-c');
      // refused at 3 (2 free) and at 13 (3 free, after the first release's `3` woke it at 12); the second release publishes `4` at 21
      expectObservable(
        big!
          .semaphore('pool')
          .acquire$(4)
          .pipe(map(() => 'F')),
        '-- ^ 40ms !',
      ).toBe('23ms F');
      const count = cold('5ms a 9ms b 9ms c 19ms d', {}).pipe(map(() => store.db.get('pool')));
      // the big hold ends at 43 and gives its 4 back at 44; c still holds one
      expectObservable(count).toBe('5ms a 9ms b 9ms c 19ms d', { a: '2', b: '3', c: '0', d: '4' });
    });
  });

  it('wakes as many waiters as the released count: two permits back let two of three waiters in together', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiters] = clients;
      store.db.set('pool', '2');
      expectObservable(
        holder!
          .semaphore('pool')
          .acquire$(2)
          .pipe(map(() => 'H')),
        '^ 9ms !',
      ).toBe('-H');
      const sem = waiters!.semaphore('pool');
      // released at 11: `2` arrives at 12, the first two waiters in line are answered at 13; the third keeps waiting
      expectObservable(sem.acquire$().pipe(map(() => '1')), '-- ^ 30ms !').toBe('13ms 1');
      expectObservable(sem.acquire$().pipe(map(() => '2')), '--- ^ 30ms !').toBe('13ms 2');
      expectObservable(sem.acquire$().pipe(map(() => '3')), '---- ^ 30ms !').toBe('');
    });
  });

  it('does not let a waiter that needs more permits swallow the wake of one that needs fewer', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiters] = clients;
      store.db.set('pool', '2');
      expectObservable(
        holder!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'H')),
        '^ 9ms !',
      ).toBe('-H');
      expectObservable(
        holder!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'K')),
      ).toBe('-K');
      const sem = waiters!.semaphore('pool');
      // first in line, needs both permits: woken by the `1` that arrives at 12, refused at 13, keeps waiting
      expectObservable(sem.acquire$(2).pipe(map(() => '2')), '-- ^ 100ms !').toBe('');
      // needs one: one is free from 11 on, and the same `1` lets it in at 13 (not at its blind re-check a second later)
      expectObservable(sem.acquire$(1).pipe(map(() => '1')), '--- ^ 100ms !').toBe('13ms 1');
    });
  });

  it('errors with LockTimeoutError at waitMs and takes nothing', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '1');
      expectObservable(clients[0]!.semaphore('pool').acquire$(2, { waitMs: 10 })).toBe('10ms #', undefined, new LockTimeoutError('pool', 10));
      expectObservable(cold('20ms a', {}).pipe(map(() => store.db.keys()))).toBe('20ms a', { a: ['pool'] });
    });
  });

  it('gives back the permits of a grant that arrives after the subscriber left', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '3');
      expectObservable(clients[0]!.semaphore('pool').acquire$(2), '^!').toBe('');
      // taken at 1 (reply ignored), the compensating release runs at 2
      expectObservable(cold('a 0ms b 1ms c', {}).pipe(map(() => store.db.get('pool')))).toBe('a 0ms b 1ms c', { a: '3', b: '1', c: '3' });
    });
  });

  it('counts an attempt that runs twice once (a re-sent command), and a second release changes nothing', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { store } = memoryClients(ts, 0);
      store.db.set('pool', '5');
      const connection = store.connect();
      const acquire = () => connection.run(semaphoreAcquireScript, ['pool', 'rxlock_holds:{pool}'], ['2', 'c9:#1']).subscribe();
      const release = () => connection.run(semaphoreReleaseScript, ['pool', 'rxlock_holds:{pool}', 'redisson_sc:{pool}'], ['c9:#1', 'publish']).subscribe();
      ts.schedule(acquire, 0);
      ts.schedule(acquire, 1);
      ts.schedule(() => expect(store.db.get('pool')).toBe('3'), 5);
      ts.schedule(release, 10);
      ts.schedule(release, 11);
      ts.schedule(() => expect(store.db.get('pool')).toBe('5'), 15);
    });
  });

  it('applies an addPermits that runs twice (a re-sent command) once', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { store } = memoryClients(ts, 0);
      const connection = store.connect();
      const add = () => connection.run(addPermitsScript, ['pool', 'redisson_sc:{pool}', 'rxlock_ops:{pool}'], ['3', 'op-1', 'publish']).subscribe();
      ts.schedule(add, 0);
      ts.schedule(add, 1);
      ts.schedule(() => expect(store.db.get('pool')).toBe('3'), 5);
    });
  });
});
