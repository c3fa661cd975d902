import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError } from '../src/index.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('restartGuardMs in virtual time (memory store, 1 ms latency; issue 41, item 10)', () => {
  it('a server up for less than restartGuardMs grants nothing until it has been up that long', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1, { restartGuardMs: 100, watchdogTimeoutMs: 90 });
      // The check (INFO server) is answered at 1, the server 1 ms old: the first attempt goes at 100, granted at 101.
      expectObservable(clients[0]!.lock$('x').pipe(map(() => 'L')), '^ 150ms !').toBe('101ms L');
    });
  });

  it('after a restart without persistence the holder hears LockLostError and the waiter enters only once the server has been up restartGuardMs', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2, { restartGuardMs: 100, watchdogTimeoutMs: 90 });
      const [holder, waiter] = clients;
      const lost = new LockLostError('x', '#1', 'not-held');
      // Both clients check at once; the holder's attempt goes at 100 and is granted at 101.
      expectObservable(holder!.lock$('x').pipe(map(() => 'H')), '^ 400ms !').toBe('101ms H 30ms #', undefined, lost);
      // The server restarts at 110, losing the lock. The holder learns it from its renewal (sent at 130, errors at 132).
      cold('110ms a').subscribe(() => store.restart());
      // The waiter, subscribed at 105 and refused, sees the connection drop: it checks the server again (answered at 131
      // at the latest) and holds off until the server has been up 100 ms (210); granted at 211.
      expectObservable(waiter!.lock$('x').pipe(map(() => 'W')), '105ms ^ 300ms !').toBe('211ms W');
    });
  });

  it('off by default: a fresh server grants at once', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.lock$('x').pipe(map(() => 'L')), '^ 10ms !').toBe('-L');
    });
  });

  it('is checked like the other durations', () => {
    const ts = createTestScheduler();
    expect(() => memoryClients(ts, 1, { restartGuardMs: -1 })).toThrow(RangeError);
  });
});
