import { catchError, concat, filter, finalize, ignoreElements, map, NEVER, Observable, of, switchMap, take, throwError, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, withLease$, type Lease } from '../src/index.js';
import type { MemoryStore } from '../src/testing.js';
import { createTestScheduler, memoryClients } from './helpers.js';

const STREAMS = 'lock$, fairLock$, spinLock$, readLock$, writeLock$, multiLock$, groupLock$, leader$, semaphore(…).acquire$ or leasedSemaphore(…).acquire$';

/** `result`, recording what `probe` reads at the moment it completes or errors (before anything that follows it runs). */
function atEnd<T, P>(result: Observable<T>, probe: () => P, seen: P[]): Observable<T> {
  return new Observable<T>((subscriber) =>
    result.subscribe({
      next: (value) => subscriber.next(value),
      error: (error: unknown) => (seen.push(probe()), subscriber.error(error)),
      complete: () => (seen.push(probe()), subscriber.complete()),
    }),
  );
}

/** The lock hashes in the store (not the waiter bookkeeping), sorted. */
function lockKeys(store: MemoryStore): string {
  return store.db
    .keys()
    .filter((key) => !key.includes(':') && !key.includes('{'))
    .sort()
    .join();
}

describe('withLease$ in virtual time (memory store, 1 ms latency)', () => {
  it('writeLock$: completes one round trip after finite work, the lock free by then; switchMap keeps it held', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      const seen: string[] = [];
      // granted at 1, the work completes at once, the release is confirmed at 2
      expectObservable(
        atEnd(
          withLease$(client!.writeLock$('w'), () => of('x')),
          () => lockKeys(store),
          seen,
        ),
      ).toBe('-x|');
      // the trap: the lease stream never completes, so the write lock outlives the work
      expectObservable(client!.writeLock$('s').pipe(switchMap(() => of('y'))), '^ 30ms !').toBe('-y');
      ts.schedule(() => expect([seen, lockKeys(store)]).toEqual([['s'], 's']), 20);
    });
  });

  it('semaphore: gives the permits back before completing', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '5');
      const seen: (string | null)[] = [];
      const work = () => concat(of('r'), timer(5).pipe(ignoreElements()));
      // granted at 1; the work ends at 6, the permits are back at 7
      expectObservable(atEnd(withLease$(clients[0]!.semaphore('pool').acquire$(2), work), () => store.db.get('pool'), seen)).toBe('-r 5ms |');
      expectObservable(of(null).pipe(switchMap(() => timer(3).pipe(map(() => store.db.get('pool')))))).toBe('---(c|)', { c: '3' });
      ts.schedule(() => expect(seen).toEqual(['5']), 10);
    });
  });

  it('fairLock$: releases before completing, and the next in line gets the lock', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [a, b] = clients;
      const seen: string[] = [];
      const work = () => concat(of('a'), timer(4).pipe(ignoreElements()));
      // a holds from 1 to 5, its release runs at 6 and hands the lock to b (in line since 2), which hears it at 7
      expectObservable(atEnd(withLease$(a!.fairLock$('f'), work), () => store.db.hkeys('f').join(), seen)).toBe('-a 4ms |');
      expectObservable(withLease$(b!.fairLock$('f'), () => of('b'))).toBe('-------b|');
      ts.schedule(() => expect(seen).toEqual([expect.stringMatching(/^c2:[^,]+$/)]), 10);
    });
  });

  it('readLock$ and leasedSemaphore: the work gets the stream’s own lease (permit ids and all)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      store.db.set('slots', '3');
      expectObservable(withLease$(client!.readLock$('r'), (lease) => of(lease.name))).toBe('-r|', { r: 'r' });
      expectObservable(withLease$(client!.leasedSemaphore('slots').acquire$(2), (lease) => of(lease.permitIds.length))).toBe('-n|', { n: 2 });
      ts.schedule(() => expect([store.db.get('slots'), store.db.zcard('{slots}:timeout'), store.db.exists('r')]).toEqual(['3', 0, 0]), 5);
    });
  });

  it('multiLock$: releases every member together, and completes once all are confirmed', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const seen: string[] = [];
      // members granted at 1, 2 and 3; the work's value at 3; the three releases are confirmed at 4
      const result = withLease$(clients[0]!.multiLock$(['c', 'a', 'b']), (lease) => of(lease.members.map((member) => member.name).join()));
      expectObservable(atEnd(result, () => lockKeys(store), seen)).toBe('---x|', { x: 'a,b,c' });
      ts.schedule(() => expect(seen).toEqual(['']), 10);
    });
  });

  it('releases before propagating an error from the work', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('pool', '1');
      const seen: (string | null)[] = [];
      const keys: number[] = [];
      const failing = withLease$(clients[0]!.semaphore('pool').acquire$(), () => throwError(() => new Error('boom')));
      expectObservable(atEnd(failing, () => store.db.get('pool'), seen)).toBe('--#', undefined, new Error('boom'));
      const multi = withLease$(clients[0]!.multiLock$(['m1', 'm2']), () => throwError(() => new Error('boom')));
      expectObservable(atEnd(multi, () => store.db.exists('m1') + store.db.exists('m2'), keys)).toBe('---#', undefined, new Error('boom'));
      ts.schedule(() => expect([seen, keys]).toEqual([['1'], [0]]), 10);
    });
  });

  it('tears the work down before it sends the release, unlike writeLock$.pipe(switchMap(work))', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      const commandsAtTeardown: Record<string, number> = {};
      const work = (label: string) => () => concat(of(label), NEVER).pipe(finalize(() => (commandsAtTeardown[label] = store.commandCount)));
      let commandsBefore = 0;
      ts.schedule(() => (commandsBefore = store.commandCount), 9);
      expectObservable(withLease$(client!.writeLock$('w'), work('withLease$')), '^ 9ms !').toBe('-a', { a: 'withLease$' });
      expectObservable(client!.writeLock$('s').pipe(switchMap(work('switchMap'))), '^ 9ms !').toBe('-a', { a: 'switchMap' });
      ts.schedule(() => {
        // withLease$: nothing sent yet when the work is torn down; switchMap: its release went out first (after w's)
        expect(commandsAtTeardown['withLease$']).toBe(commandsBefore);
        expect(commandsAtTeardown['switchMap']).toBe(commandsBefore + 2);
      }, 20);
    });
  });

  it('tears the work down and errors with LockLostError when the lease is lost', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      let tornDownAt = -1;
      cold('5ms a').subscribe(() => store.setFault('blackhole'));
      const work = () => concat(of('w'), NEVER).pipe(finalize(() => (tornDownAt = ts.now())));
      expectObservable(withLease$(clients[0]!.fairLock$('a'), work), '^ 60ms !').toBe('- w 25ms #', undefined, new LockLostError('a', '#1', 'unconfirmed'));
      ts.schedule(() => expect(tornDownAt).toBe(27), 40);
    });
  });

  it('a lease lost under finished work errors the result with LockLostError carrying the work’s last value, and events$ says lost', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      // the work deletes the lock behind the holder's back: its release answers "not held"
      const work = () => {
        store.db.del('w');
        return of('x');
      };
      expectObservable(withLease$(client!.writeLock$('w'), work).pipe(catchError((error: LockLostError) => of(`${error.name}:${String(error.result)}`)))).toBe(
        '-x(l|)',
        { x: 'x', l: 'LockLostError:x' },
      );
      expectObservable(
        client!.events$.pipe(
          filter((event) => event.type.startsWith('release') || event.type === 'lost'),
          map((event) => event.type),
        ),
        '^ 5ms !',
      ).toBe('--l', { l: 'lost' });
    });
  });

  it('leader$: a lost term tears the work down, the next term runs it again, and the result completes after one run', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const stops: number[] = [];
      cold('5ms a').subscribe(() => store.restart());
      const duties = () => concat(of('d'), timer(20).pipe(ignoreElements())).pipe(finalize(() => stops.push(ts.now())));
      // term 1 from 1; the renewal at 11 finds the key gone (12); term 2 from 13, its work ends at 33, released at 34
      expectObservable(withLease$(clients[0]!.leader$('x'), duties)).toBe('- d 11ms d 20ms |');
      ts.schedule(() => expect([stops, store.db.exists('x')]).toEqual([[12, 33], 0]), 40);
    });
  });
});

describe('withLease$ refuses what is not one of rxlock’s lease streams', () => {
  it('errors with a TypeError for a lease of another source', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const foreign: Lease = { name: 'x', owner: 'me', acquiredAt: 0, token: undefined, signal: new AbortController().signal, deadline: Infinity, held: true };
      let ran = false;
      const message = `rxlock: withLease$: the stream emitted an object, not a lease of one of rxlock's streams (${STREAMS})`;
      expectObservable(withLease$(of(foreign), () => ((ran = true), of('x')))).toBe('#', undefined, new TypeError(message));
      ts.schedule(() => expect(ran).toBe(false), 1);
    });
  });

  it('errors with a TypeError, tearing the work down, when the lease stream completes (take(1))', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      let tornDownAt = -1;
      const work = () => concat(of('w'), NEVER).pipe(finalize(() => (tornDownAt = ts.now())));
      const message = `rxlock: withLease$: the lease stream completed; rxlock's lease streams never do (take(1) or first() before withLease$ releases the lease at once)`;
      expectObservable(withLease$(clients[0]!.lock$('a').pipe(take(1)), work)).toBe('-(w#)', { w: 'w' }, new TypeError(message));
      ts.schedule(() => expect(tornDownAt).toBe(1), 5);
    });
  });

  it('errors with a TypeError for a stream that is not an Observable, or work that is not a function', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      /* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- the wrong input is the point */
      // @ts-expect-error -- a promise is not a lease stream
      expectObservable(withLease$(Promise.resolve(1), () => of(1))).toBe(
        '#',
        undefined,
        new TypeError(`rxlock: withLease$: the lease stream must be an Observable (${STREAMS}), got an object`),
      );
      /* eslint-enable @typescript-eslint/no-unsafe-class-instance-assignment */
      // @ts-expect-error -- work must be a function
      expectObservable(withLease$(clients[0]!.lock$('a'), 'work')).toBe(
        '#',
        undefined,
        new TypeError('rxlock: withLease$: work must be a function, got string'),
      );
      ts.schedule(() => expect(store.commandCount).toBe(0), 5);
    });
  });
});
