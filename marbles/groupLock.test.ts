import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError } from '../src/index.js';
import { valueField } from '../src/primitives/groupLock/valueField.js';
import { createTestScheduler, memoryClients } from './helpers.js';

const X = valueField('x');
const Y = valueField('y');

describe('groupLock$ in virtual time (memory store, 1 ms latency)', () => {
  it('a group sharing a value waits until the release, whose message wakes it at once', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [a, b] = clients;
      expectObservable(a!.groupLock$('g', ['x', 'y']).pipe(map(() => 'A')), '^ 9ms !').toBe('-A');
      // refused at 3 (y is a's until 31); a's release runs at 11 and its `1` reaches b at 12, whose attempt is answered at 13
      expectObservable(b!.groupLock$('g', ['y', 'z']).pipe(map(() => 'B')), '-- ^ 40ms !').toBe('13ms B');
    });
  });

  it('a waiter behind a holder that died tries again exactly when its values expire (nothing is published)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      // A Redisson holder that died: x is its until 40 on the server's clock.
      store.db.hset('g', X, 'java:1');
      store.db.hset('g', `${X}:java:1:expire_time`, '40');
      store.db.hset('g', `${X}:java:1:lock_count`, '1');
      // refused at 1 and 3 ("the latest expiry is 39 / 37 ms away"); the retry sent at 40 runs at 41 and takes it over
      expectObservable(clients[0]!.groupLock$('g', ['x']).pipe(map(() => 'W')), '^ 60ms !').toBe('41ms W');
      ts.schedule(() => expect([store.db.hget('g', `${X}:java:1:expire_time`), store.db.hget('g', X)]).toEqual([null, 'c1:#1']), 50);
    });
  });

  it('gives up at waitMs with LockTimeoutError', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [a, b] = clients;
      expectObservable(a!.groupLock$('g', ['x']).pipe(map(() => 'A')), '^ 50ms !').toBe('-A');
      expectObservable(b!.groupLock$('g', ['y', 'x'], { waitMs: 20 }), '-- ^ 40ms !').toBe('22ms #', undefined, new LockTimeoutError('g', 20));
    });
  });

  it('the watchdog renews every third of the TTL, so the values outlive it while subscribed', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [a, b] = clients;
      expectObservable(a!.groupLock$('g', ['x', 'y']).pipe(map(() => 'A')), '^ 100ms !').toBe('-A');
      // the watchdog started with the grant at 1: the renewal sent at 91 runs at 92, and every expiry is then 122
      ts.schedule(() => expect([store.db.hget('g', `${X}:c1:#1:expire_time`), store.db.hget('g', `${Y}:c1:#1:expire_time`)]).toEqual(['122', '122']), 95);
      expectObservable(b!.groupLock$('g', ['y'], { waitMs: 0 }), '95ms ^ 5ms !').toBe('96ms #', undefined, new LockTimeoutError('g', 0));
    });
  });

  it('errors with LockLostError (not-held) at the first renewal after a value was taken from it, and frees the others', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.groupLock$('g', ['x', 'y']).pipe(map(() => 'A')), '^ 60ms !').toBe(
        '-A 20ms #',
        undefined,
        new LockLostError('g', '#1', 'not-held'),
      );
      ts.schedule(() => {
        store.db.hset('g', Y, 'java:1');
        store.db.hset('g', `${Y}:java:1:expire_time`, '1000');
      }, 15);
      // the watchdog ticks from the grant at 1: the renewal sent at 21 runs at 22 and finds y another's; the release that follows frees x at 23
      ts.schedule(() => expect([store.db.hget('g', X), store.db.hget('g', Y)]).toEqual([null, 'java:1']), 25);
    });
  });
});
