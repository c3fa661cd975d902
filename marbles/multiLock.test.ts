import { map } from 'rxjs';
import { describe, it } from 'vitest';
import { LockLostError, LockTimeoutError } from '../src/index.js';
import type { MemoryStore } from '../src/testing.js';
import { createTestScheduler, memoryClients } from './helpers.js';

/** The lock hashes in the store (not the waiter bookkeeping of lock$), sorted. */
function lockNames(store: MemoryStore): string {
  return store.db
    .keys()
    .filter((key) => !key.includes(':'))
    .sort()
    .join();
}

describe('multiLock$ in virtual time (memory store, 1 ms latency)', () => {
  it('takes the members one after the other in name order, and emits once all are held', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.multiLock$(['c', 'a', 'b']).pipe(map((lease) => lease.members.map((m) => m.name).join())), '^ 20ms !').toBe('---x', {
        x: 'a,b,c',
      });
      const held = cold('-a-b-c', {}).pipe(map(() => lockNames(store)));
      expectObservable(held).toBe('-a-b-c', { a: 'a', b: 'a,b', c: 'a,b,c' });
    });
  });

  it('times out at waitMs and releases the members it held', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [multi, blocker] = clients;
      expectObservable(blocker!.lock$('c').pipe(map(() => 'B')), '^ 30ms !').toBe('- B');
      // a at 1, b at 2, c refused at 3 and waited for until 10; the releases of a and b run at 11
      expectObservable(multi!.multiLock$(['a', 'b', 'c'], { waitMs: 10 })).toBe('10ms #', undefined, new LockTimeoutError('c', 10));
      const held = cold('10ms a 1ms b', {}).pipe(map(() => lockNames(store)));
      expectObservable(held).toBe('10ms a 1ms b', { a: 'a,b,c', b: 'c' });
    });
  });

  it('errors with the member’s LockLostError when one is lost, and releases the others', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.db.del('b'));
      // the watchdog's renewal (every 10 ms from the first grant at 1) is sent at 11 and finds b gone at 12
      expectObservable(clients[0]!.multiLock$(['a', 'b', 'c']).pipe(map(() => 'M')), '^ 40ms !').toBe(
        '---M 8ms #',
        undefined,
        new LockLostError('b', '#1', 'not-held'),
      );
      const held = cold('12ms a 1ms b', {}).pipe(map(() => lockNames(store)));
      expectObservable(held).toBe('12ms a 1ms b', { a: 'a,c', b: '' });
    });
  });

  it('sets every member to the fixed lease once all are held, so that the lease counts from then', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      // granted at 1, 2 and 3 under the watchdog (30 ms); the fixes go out at 3, run and are confirmed at 4:
      // every deadline is 3 + 100 - (1 + 2), and every key lives 100 ms from 4
      const lease$ = clients[0]!
        .multiLock$(['a', 'b', 'c'], { leaseMs: 100 })
        .pipe(map((lease) => [lease.held, lease.members.map((member) => member.deadline)]));
      expectObservable(lease$, '^ 50ms !').toBe('----x', { x: [true, [100, 100, 100]] });
      const ttls = cold('5ms a').pipe(map(() => ['a', 'b', 'c'].map((name) => store.db.pttl(name))));
      expectObservable(ttls).toBe('5ms a', { a: [99, 99, 99] });
    });
  });

  it('never shortens a member that an enclosing withLock$ holds: its key is only lengthened', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      // the outer hold of a lives 500 ms from 1; the multi-lock re-enters a, takes b, fixes both at 3 (run at 4)
      const ttls$ = client!.withLock$('a', () => client!.multiLock$(['a', 'b'], { leaseMs: 100 }).pipe(map(() => [store.db.pttl('a'), store.db.pttl('b')])), {
        leaseMs: 500,
      });
      expectObservable(ttls$, '^ 50ms !').toBe('----x', { x: [497, 100] });
    });
  });

  it('keeps early members while a later one is awaited for longer than the fixed lease, then expires them together', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [multi, blocker] = clients;
      expectObservable(blocker!.lock$('c').pipe(map(() => 'B')), '^ 150ms !').toBe('- B');
      // c is handed over when the blocker lets go at 150 (granted at 153); the fixes go out then and are confirmed at 154
      const lease$ = multi!.multiLock$(['a', 'b', 'c'], { leaseMs: 100 }).pipe(map((lease) => lease.deadline));
      expectObservable(lease$).toBe('154ms x 95ms #', { x: 250 }, new LockLostError('a', '#1', 'expired'));
      // a and b outlive their 100 ms under the watchdog; all three are released once the lease ran out
      const held = cold('140ms a 199ms b').pipe(map(() => lockNames(store)));
      expectObservable(held).toBe('140ms a 199ms b', { a: 'a,b,c', b: '' });
    });
  });

  it('retries a fix that failed while its outcome is known, and emits once the retries went through', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2, { commandTimeoutMs: 40 });
      const [multi, blocker] = clients;
      expectObservable(blocker!.lock$('c').pipe(map(() => 'B')), '^ 20ms !').toBe('- B');
      // Redis refuses connections from 22 to 28: the fixes sent at 23 fail and are retried every 4 ms (commandTimeoutMs / 10); those sent at 31 are confirmed at 32
      cold('22ms a 5ms b').subscribe((fault) => store.setFault(fault === 'a' ? 'unavailable' : 'none'));
      expectObservable(multi!.multiLock$(['a', 'b', 'c'], { leaseMs: 100 }).pipe(map((lease) => lease.deadline)), '^ 60ms !').toBe('32ms x', { x: 31 + 97 });
    });
  });
});
