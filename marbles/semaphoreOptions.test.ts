import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { trySetPermitsScript } from '../src/primitives/semaphore/adminScripts.js';
import { releaseIfExistsScript } from '../src/primitives/semaphore/releaseIfExistsScript.js';
import { tryReleaseScript } from '../src/primitives/leasedSemaphore/tryReleaseScript.js';
import { updateLeaseScript } from '../src/primitives/leasedSemaphore/updateLeaseScript.js';
import { createTestScheduler, memoryClients } from './helpers.js';

const GHOST_ID = 'ab'.repeat(16);
const GHOST = Buffer.from(GHOST_ID, 'hex').toString('latin1');
const OTHER_ID = 'cd'.repeat(16);
const OTHER = Buffer.from(OTHER_ID, 'hex').toString('latin1');
const LEASED_KEYS = ['pool', '{pool}:timeout', 'redisson_sc:{pool}'];

describe('semaphore options in virtual time (memory store, 1 ms latency)', () => {
  it('a count set with a TTL is gone at its expiry, with its holds’ records: a waiter is never let in', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      const connection = store.connect();
      // sent at 0, runs at 1: the count expires at 41
      ts.schedule(
        () => connection.run(trySetPermitsScript, ['pool', 'redisson_sc:{pool}', 'rxlock_ops:{pool}'], ['1', 'op-1', 'publish', '40']).subscribe(),
        0,
      );
      expectObservable(
        holder!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'H')),
        '-- ^ 80ms !',
      ).toBe('---H');
      expectObservable(
        waiter!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'W')),
        '----- ^ 80ms !',
      ).toBe('');
      ts.schedule(() => expect(store.db.keys().sort()).toEqual(['pool', 'rxlock_holds:{pool}', 'rxlock_ops:{pool}']), 40);
      ts.schedule(() => expect(store.db.keys()).toEqual(['rxlock_ops:{pool}']), 41);
    });
  });

  it('releaseIfExists by a peer publishes the new count, which lets the waiter in at once', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '0');
      const connection = store.connect();
      ts.schedule(() => connection.run(releaseIfExistsScript, ['pool', 'redisson_sc:{pool}', 'rxlock_ops:{pool}'], ['1', 'op-1', 'publish']).subscribe(), 20);
      // refused at 1 and 3 (no fallback: the blind re-check is a second away); the release runs at 21, its `1` arrives at 22
      expectObservable(
        clients[0]!
          .semaphore('pool')
          .acquire$()
          .pipe(map(() => 'W')),
        '^ 80ms !',
      ).toBe('23ms W');
    });
  });
});

describe('leasedSemaphore options in virtual time (memory store, 1 ms latency)', () => {
  it('a lease moved later by updateLeaseTime keeps the waiter out until the new expiry', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '0');
      store.db.zadd('{pool}:timeout', 30, GHOST);
      // at 10 the permit's lease is moved to end at 60
      ts.schedule(() => updateLeaseScript.memory(store.db, LEASED_KEYS, [GHOST_ID, '50', 'publish']), 10);
      // told "29 ms" at 1: the retry at 30 runs at 31 and is told "29 ms" again; the one at 60 runs at 61 and takes it
      expectObservable(
        clients[0]!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'W')),
        '^ 100ms !',
      ).toBe('61ms W');
    });
  });

  it('tryRelease of two ids publishes the new count: two waiters are let in together', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      store.db.set('pool', '0');
      store.db.zadd('{pool}:timeout', 1_000, GHOST);
      store.db.zadd('{pool}:timeout', 1_000, OTHER);
      ts.schedule(() => tryReleaseScript.memory(store.db, [...LEASED_KEYS, 'rxlock_ops:{pool}'], ['op-1', 'publish', GHOST_ID, OTHER_ID]), 20);
      // the `2` published at 20 arrives at 21; both attempts are answered at 22
      expectObservable(
        clients[0]!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'A')),
        '^ 80ms !',
      ).toBe('22ms A');
      expectObservable(
        clients[1]!
          .leasedSemaphore('pool')
          .acquire$()
          .pipe(map(() => 'B')),
        '-^ 80ms !',
      ).toBe('22ms B');
    });
  });
});
