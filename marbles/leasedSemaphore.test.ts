import { filter, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError } from '../src/index.js';
import { leasedAcquireScript } from '../src/primitives/leasedSemaphore/acquireScript.js';
import { leasedReleaseScript } from '../src/primitives/leasedSemaphore/releaseScript.js';
import { createTestScheduler, memoryClients } from './helpers.js';

const GHOST = Buffer.from('ab'.repeat(16), 'hex').toString('latin1');

describe('leasedSemaphore(name).acquire$ in virtual time (memory store, 1 ms latency)', () => {
  it('reclaims a dead holder’s permit when its lease runs out: the waiter tries again exactly then', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      // A holder that died: its permit was taken from the pool and expires at 30 on the server's clock.
      store.db.set('pool', '0');
      store.db.zadd('{pool}:timeout', 30, GHOST);
      // refused at 1 and 3 with "earliest expiry in 29 / 27 ms"; the retry sent at 30 runs at 31, reclaims and takes it
      expectObservable(
        clients[0]!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'P')),
        '^ 50ms !',
      ).toBe('31ms P');
    });
  });

  it('errors the holder of an expiring permit with LockLostError just before its lease runs out, and hands the permit on', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      store.db.set('pool', '1');
      // deadline = sent (0) + 50 - (ceil(0.5) + 2) = 47: the holder's stream errors and its release returns the permit at 48
      expectObservable(
        holder!
          .leasedSemaphore('pool')
          .acquire$(1, { leaseMs: 50 })
          .pipe(map(() => 'H')),
        '^ 80ms !',
      ).toBe('-H 45ms #', undefined, new LockLostError('pool', '#1', 'expired'));
      // the new count reaches the waiter at 49, its attempt is answered at 50 (the server would have reclaimed it at 51)
      expectObservable(
        waiter!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'W')),
        '-- ^ 80ms !',
      ).toBe('50ms W');
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
          .leasedSemaphore('pool')
          .acquire$(1, { leaseMs: 1000 })
          .pipe(map(() => 'H')),
        '^ 9ms !',
      ).toBe('-H');
      expectObservable(
        holder!
          .leasedSemaphore('pool')
          .acquire$(1, { leaseMs: 1000 })
          .pipe(map(() => 'K')),
        '^ 200ms !',
      ).toBe('-K');
      const pool = waiters!.leasedSemaphore('pool');
      // first in line, needs both permits: woken by the `1` that arrives at 12, refused at 13, keeps waiting
      expectObservable(pool.acquire$(2, { leaseMs: 1000 }).pipe(map(() => '2')), '-- ^ 200ms !').toBe('');
      // needs one: one is free from 11 on, and the same `1` lets it in at 13 (not when the other held permit expires at 1001)
      expectObservable(pool.acquire$(1, { leaseMs: 1000 }).pipe(map(() => '1')), '--- ^ 200ms !').toBe('13ms 1');
    });
  });

  it('keeps permits held without leaseMs for as long as it is subscribed: the watchdog renews their expiry', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2, { watchdogTimeoutMs: 30 });
      const [holder, waiter] = clients;
      store.db.set('pool', '1');
      expectObservable(
        holder!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'H')),
        '^ 100ms !',
      ).toBe('-H');
      expectObservable(waiter!.leasedSemaphore('pool').acquire$(1, { waitMs: 80 }), '-- ^ 100ms !').toBe('82ms #', undefined, new LockTimeoutError('pool', 80));
      const renewed = holder!.events$.pipe(
        filter((e) => e.type === 'renewed'),
        map(() => 'r'),
      );
      expectObservable(renewed, '^ 35ms !').toBe('12ms r 9ms r 9ms r');
      // the permit's expiry moves with every renewal: 31 at the grant, 31 + 10k after the k-th
      const expiry = cold('5ms a 39ms b', {}).pipe(map(() => store.db.zrangeWithScores('{pool}:timeout').map(([, score]) => score)));
      expectObservable(expiry).toBe('5ms a 39ms b', { a: [31], b: [72] });
    });
  });

  it('gives each permit a 32-hex-digit id, stored as its 16 bytes, and gives them back on unsubscribe', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '5');
      const ids: string[] = [];
      const lease$ = clients[0]!.leasedSemaphore('pool').acquire$(3, { leaseMs: 1000 });
      expectObservable(lease$.pipe(map((lease) => (ids.push(...lease.permitIds), 'L'))), '^ 9ms !').toBe('-L');
      const state = cold('5ms a 9ms b', {}).pipe(map(() => [store.db.get('pool'), store.db.zcard('{pool}:timeout')]));
      expectObservable(state).toBe('5ms a 9ms b', { a: ['2', 3], b: ['5', 0] });
      ts.schedule(() => {
        expect(ids).toHaveLength(3);
        for (const id of ids) {
          expect(id).toMatch(/^[0-9a-f]{32}$/);
          expect(store.db.zscore('{pool}:timeout', Buffer.from(id, 'hex').toString('latin1'))).toBe(1001);
        }
      }, 5);
    });
  });

  it('counts an attempt that runs twice (a re-sent command) once, and a second release changes nothing', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { store } = memoryClients(ts, 0);
      store.db.set('pool', '5');
      const connection = store.connect();
      const keys = ['pool', '{pool}:timeout', 'redisson_sc:{pool}'];
      const ids = ['01'.repeat(16), '02'.repeat(16)];
      const acquire = () => connection.run(leasedAcquireScript, keys, ['2', '1000', 'publish', ...ids]).subscribe();
      const release = () => connection.run(leasedReleaseScript, keys, ['publish', ...ids]).subscribe();
      ts.schedule(acquire, 0);
      ts.schedule(acquire, 1);
      ts.schedule(() => expect([store.db.get('pool'), store.db.zcard('{pool}:timeout')]).toEqual(['3', 2]), 5);
      ts.schedule(release, 10);
      ts.schedule(release, 11);
      ts.schedule(() => expect([store.db.get('pool'), store.db.zcard('{pool}:timeout')]).toEqual(['5', 0]), 15);
    });
  });
});
