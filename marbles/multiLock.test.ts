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

  it('is held while every member is, until the earliest member deadline', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      // attempts sent at 0, 1 and 2 with a 100 ms lease each: deadlines 0 + 100 - (1 + 2), 98 and 99
      const lease$ = clients[0]!.multiLock$(['a', 'b', 'c'], { leaseMs: 100 }).pipe(map((lease) => [lease.held, lease.deadline]));
      expectObservable(lease$, '^ 50ms !').toBe('---x', { x: [true, 97] });
    });
  });
});
