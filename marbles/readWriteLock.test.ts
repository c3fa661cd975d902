import { filter, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockUpgradeError } from '../src/index.js';
import { readAcquireScript } from '../src/primitives/readWriteLock/readAcquireScript.js';
import { readReleaseScript } from '../src/primitives/readWriteLock/readReleaseScript.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('readLock$ / writeLock$ in virtual time (memory store, 1 ms latency)', () => {
  it('lets 20 readers blocked behind a writer hold the read lock together, in the frame the write release reaches them', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 5);
      const [writer, ...readerClients] = clients;
      expectObservable(writer!.writeLock$('doc').pipe(map(() => 'W')), '^ 19ms !').toBe('- W');
      // 4 clients x 5 readers, all waiting from frame 3; release sent at 20, runs at 21, `1` arrives at 22, attempts answered at 23
      for (const client of readerClients) {
        for (let i = 0; i < 5; i++) expectObservable(client.readLock$('doc').pipe(map(() => 'R')), '--- ^ 40ms !').toBe('23ms R');
      }
    });
  });

  it('keeps a writer out while two readers hold, and lets it in when the second one leaves', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 3);
      const [a, b, writer] = clients;
      expectObservable(a!.readLock$('doc').pipe(map(() => 'A')), '^ 9ms !').toBe('- A');
      expectObservable(b!.readLock$('doc').pipe(map(() => 'B')), '-- ^ 17ms !').toBe('---B');
      // the first release (11) leaves B's hold: nothing is published; the second (21) deletes the hash and publishes `0`
      expectObservable(writer!.writeLock$('doc').pipe(map(() => 'W')), '---- ^ 30ms !').toBe('23ms W');
      const mode = cold('15ms a 9ms b', {}).pipe(map(() => store.db.hget('doc', 'mode')));
      expectObservable(mode).toBe('15ms a 9ms b', { a: 'read', b: 'write' });
    });
  });

  it('lets the writer take the read lock (downgrade) and keep it after the write release, which wakes the other readers', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [owner, other] = clients;
      expectObservable(owner!.writeLock$('doc', { owner: 'job' }).pipe(map(() => 'W')), '^ 29ms !').toBe('- W');
      expectObservable(owner!.readLock$('doc', { owner: 'job' }).pipe(map(() => 'r')), '-- ^ 40ms !').toBe('---r');
      // another owner's reader waits while the write lock is held; the write release (31) downgrades and publishes `1`
      expectObservable(other!.readLock$('doc').pipe(map(() => 'R')), '----- ^ 40ms !').toBe('33ms R');
      const fields = cold('20ms a 12ms b', {}).pipe(
        map(() => [store.db.hget('doc', 'mode'), store.db.hget('doc', 'c1:job:write'), store.db.hget('doc', 'c1:job')]),
      );
      expectObservable(fields).toBe('20ms a 12ms b', { a: ['write', '1', '1'], b: ['read', null, '1'] });
    });
  });

  it('refuses an upgrade at once with LockUpgradeError and changes nothing', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      expectObservable(client!.readLock$('doc', { owner: 'job' }).pipe(map(() => 'r')), '^ 20ms !').toBe('- r');
      expectObservable(client!.writeLock$('doc', { owner: 'job' }), '--- ^ 20ms !').toBe('----#', undefined, new LockUpgradeError('doc', 'job'));
      const state = cold('10ms a', {}).pipe(map(() => [store.db.hget('doc', 'mode'), store.db.hget('doc', 'c1:job'), store.db.hget('doc', 'c1:job:write')]));
      expectObservable(state).toBe('10ms a', { a: ['read', '1', null] });
    });
  });

  it('lets readers that died age out: the live reader keeps the hash, and its release ignores the dead reader', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [reader, writer] = clients;
      // A reader of a client that died: its field and its timeout key, which nobody renews, run out at 25.
      store.db.hset('doc', 'mode', 'read');
      store.db.hset('doc', 'ghost:1', '1');
      store.db.set('{doc}:ghost:1:rwlock_timeout:1', '1', { px: 25 });
      store.db.pexpire('doc', 25);
      expectObservable(reader!.readLock$('doc').pipe(map(() => 'R')), '^ 59ms !').toBe('- R');
      // the writer's TTL fallbacks find the hash renewed by the live reader; its release (61) publishes `0`
      expectObservable(writer!.writeLock$('doc').pipe(map(() => 'W')), '-- ^ 80ms !').toBe('63ms W');
      const state = cold('40ms a', {}).pipe(
        map(() => [store.db.exists('{doc}:ghost:1:rwlock_timeout:1'), store.db.hget('doc', 'ghost:1'), store.db.pttl('doc') > 0]),
      );
      expectObservable(state).toBe('40ms a', { a: [0, '1', true] });
    });
  });

  it('shrinks the hash TTL to the longest remaining reader timeout when a live reader leaves, and tells a waiting writer', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [reader, writer] = clients;
      store.db.hset('doc', 'mode', 'read');
      store.db.hset('doc', 'ghost:1', '1');
      store.db.set('{doc}:ghost:1:rwlock_timeout:1', '1', { px: 25 });
      store.db.pexpire('doc', 25);
      expectObservable(reader!.readLock$('doc').pipe(map(() => 'R')), '^ 9ms !').toBe('- R');
      // granted at 1 with a 30 ms TTL; the release runs at 11 and leaves the dead reader's last 14 ms (13 at frame 12)
      const ttl = cold('5ms a 6ms b', {}).pipe(map(() => store.db.pttl('doc')));
      expectObservable(ttl).toBe('5ms a 6ms b', { a: 26, b: 13 });
      // the writer's fallback was due at 31; the `0` of the shortening release (12) makes it read the new TTL: it retries at 25
      expectObservable(writer!.writeLock$('doc').pipe(map(() => 'W')), '-- ^ 40ms !').toBe('26ms W');
    });
  });

  it('renews read holds with the watchdog and errors a fixed-lease read hold with LockLostError just before it runs out', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      const [client] = clients;
      expectObservable(client!.readLock$('w').pipe(map(() => 'R')), '^ 40ms !').toBe('- R');
      const renewed = client!.events$.pipe(
        filter((e) => e.type === 'renewed' && e.kind === 'readLock'),
        map(() => 'r'),
      );
      expectObservable(renewed, '^ 35ms !').toBe('12ms r 9ms r 9ms r');
      // deadline = sent (0) + 50 - (ceil(0.5) + 2) = 47
      expectObservable(client!.readLock$('f', { leaseMs: 50 }).pipe(map(() => 'F')), '^ 80ms !').toBe(
        '- F 45ms #',
        undefined,
        new LockLostError('f', '#2', 'expired'),
      );
    });
  });

  it('counts a reentrant read acquire that runs twice (a re-sent command) once, and a second release changes nothing', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { store } = memoryClients(ts, 0);
      const connection = store.connect();
      const acquire = (hold: string) => () =>
        connection.run(readAcquireScript, ['doc', 'rxlock_holds:{doc}', '{doc}:c9:job:rwlock_timeout'], ['1000', 'c9:job', 'c9:job:write', hold]).subscribe();
      const release = (hold: string) => () =>
        connection
          .run(readReleaseScript, ['doc', 'redisson_rwlock:{doc}', '{doc}:c9:job:rwlock_timeout', '{doc}', 'rxlock_holds:{doc}'], ['c9:job', hold, 'publish'])
          .subscribe();
      ts.schedule(acquire('c9:#1'), 0);
      ts.schedule(acquire('c9:#1'), 1);
      ts.schedule(acquire('c9:#2'), 2);
      ts.schedule(() => expect([store.db.hget('doc', 'c9:job'), store.db.exists('{doc}:c9:job:rwlock_timeout:3')]).toEqual(['2', 0]), 5);
      ts.schedule(release('c9:#1'), 10);
      ts.schedule(release('c9:#1'), 11);
      ts.schedule(() => expect(store.db.hget('doc', 'c9:job')).toBe('1'), 15);
      ts.schedule(release('c9:#2'), 16);
      ts.schedule(() => expect(store.db.keys()).toEqual([]), 20);
    });
  });
});

describe('readLock$ reentrant holds of one owner with different leases (memory store, 1 ms latency)', () => {
  it('keeps the longer hold’s timeout when the shorter, earlier hold runs out first, so no writer gets in under it', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [owner, other] = clients;
      // hold 1 (timeout key :1) has a 20 ms lease and runs out first: deadline 0 + 20 - 3 = 17, its release runs at 18
      expectObservable(owner!.readLock$('doc', { owner: 'job', leaseMs: 20 }).pipe(map(() => 'a')), '^ 40ms !').toBe(
        '- a 15ms #',
        undefined,
        new LockLostError('doc', 'job', 'expired'),
      );
      // hold 2 (timeout key :2) has 100 ms: deadline 2 + 100 - 3 = 99
      expectObservable(owner!.readLock$('doc', { owner: 'job', leaseMs: 100 }).pipe(map(() => 'b')), '-- ^ 120ms !').toBe(
        '---b 95ms #',
        undefined,
        new LockLostError('doc', 'job', 'expired'),
      );
      // the writer waits for hold 2, whose release (sent at 99) deletes the hash and publishes `0`
      expectObservable(other!.writeLock$('doc').pipe(map(() => 'W')), '----- ^ 120ms !').toBe('102ms W');
      // after hold 1's release, the hash and the one timeout key left live as long as hold 2
      const state = cold('30ms a', {}).pipe(
        map(() => [store.db.hget('doc', 'c1:job'), store.db.pttl('doc') > 60, store.db.pttl('{doc}:c1:job:rwlock_timeout:1') > 60]),
      );
      expectObservable(state).toBe('30ms a', { a: ['1', true, true] });
    });
  });
});
