import { concat, filter, finalize, map, NEVER, Observable, of, switchMap, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ClientClosedError, LockLostError, type Lease } from '../src/index.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('withLock$ in virtual time', () => {
  it('completes one round trip after the work, once the release is confirmed', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      // granted at 1, the work completes at once, the release is confirmed at 2
      expectObservable(clients[0]!.withLock$('a', () => of('x'))).toBe('-x|');
    });
  });

  it('releases before propagating an error from the work', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const keysWhenErrored: string[][] = [];
      const result = clients[0]!.withLock$('a', () => throwError(() => new Error('boom')));
      const observed = new Observable<string>((subscriber) =>
        result.subscribe({ error: (error: Error) => (keysWhenErrored.push(store.db.keys()), subscriber.error(error)) }),
      );
      expectObservable(observed).toBe('--#', undefined, new Error('boom'));
      ts.schedule(() => expect(keysWhenErrored).toEqual([[]]), 5);
    });
  });

  it('tears the work down before it sends the release, unlike lock$.pipe(switchMap(work))', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      const commandsAtTeardown: Record<string, number> = {};
      const work = (label: string) => () => concat(of(label), NEVER).pipe(finalize(() => (commandsAtTeardown[label] = store.commandCount)));
      let commandsBefore = 0;
      ts.schedule(() => (commandsBefore = store.commandCount), 9);
      expectObservable(client!.withLock$('w', work('withLock$')), '^ 9ms !').toBe('-a', { a: 'withLock$' });
      expectObservable(client!.lock$('s').pipe(switchMap(work('switchMap'))), '^ 9ms !').toBe('-a', { a: 'switchMap' });
      ts.schedule(() => {
        // withLock$: nothing sent yet when the work is torn down; switchMap: the release went out first.
        expect(commandsAtTeardown['withLock$']).toBe(commandsBefore);
        expect(commandsAtTeardown['switchMap']).toBe(commandsBefore + 2);
      }, 20);
    });
  });

  it('tears the work down and errors with LockLostError when the lock is lost', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      let tornDownAt = -1;
      cold('5ms a').subscribe(() => store.setFault('blackhole'));
      const work = () => concat(of('w'), NEVER).pipe(finalize(() => (tornDownAt = ts.now())));
      expectObservable(clients[0]!.withLock$('a', work), '^ 60ms !').toBe('- w 25ms #', undefined, new LockLostError('a', '#1', 'unconfirmed'));
      ts.schedule(() => expect(tornDownAt).toBe(27), 40);
    });
  });

  it('re-enters the lock for work nested in the same withLock$', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      // The nested lock$ names no owner: it inherits the enclosing withLock$'s.
      const nested = client!.withLock$('a', (lease) => client!.lock$('a').pipe(map(() => store.db.hget('a', `c1:${lease.owner}`))));
      expectObservable(nested, '^ 10ms !').toBe('--a', { a: '2' });
    });
  });
});

describe('renewal in virtual time', () => {
  it('retries a failed renewal while the deadline allows, and the lease survives', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      cold('5ms a 9ms b').subscribe((v) => store.setFault(v === 'a' ? 'unavailable' : 'none'));
      expectObservable(client!.lock$('a').pipe(map(() => 'L')), '^ 40ms !').toBe('- L');
      const renewals = client!.events$.pipe(
        filter((e) => e.type === 'renew-failed' || e.type === 'renewed'),
        map((e) => (e.type === 'renew-failed' ? 'f' : 'r')),
      );
      // tick at 11 fails, retry at 14 fails, retry at 17 is answered at 18; next tick at 21 -> 22
      expectObservable(renewals, '^ 25ms !').toBe('11ms f 2ms f 3ms r 3ms r');
    });
  });

  it('errors with LockLostError (unconfirmed) at the deadline when every retry fails', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.setFault('unavailable'));
      expectObservable(clients[0]!.lock$('a').pipe(map(() => 'L')), '^ 40ms !').toBe('- L 25ms #', undefined, new LockLostError('a', '#1', 'unconfirmed'));
    });
  });
});

describe('leader$ in virtual time', () => {
  it('runs the work in each term: stops it on loss and restarts it on the next term', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const stops: number[] = [];
      cold('5ms a').subscribe(() => store.restart());
      const duties = () => concat(of('d'), NEVER).pipe(finalize(() => stops.push(ts.now())));
      // term 1 from 1; the renewal at 11 finds the key gone (12); term 2 granted at 13
      expectObservable(clients[0]!.leader$('x', duties), '^ 30ms !').toBe('- d 11ms d');
      ts.schedule(() => expect(stops).toEqual([12]), 20);
    });
  });

  it('is an ordinary Observable: a lease per term, and pipe(f) is f(leader$)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.restart());
      const terms$ = clients[0]!.leader$('x');
      const label = map((lease: Lease) => (lease.held ? 'L' : '?'));
      // term 1 from 1, lost at 12; term 2 granted at 13
      expectObservable(terms$.pipe(label), '^ 30ms !').toBe('- L 11ms L');
      expectObservable(label(clients[0]!.leader$('y')), '^ 30ms !').toBe('- L 11ms L');
    });
  });

  it('errors with the signal’s reason when it aborts while waiting out recampaignDelayMs', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const controller = new AbortController();
      const reason = new Error('shutting down');
      cold('5ms a').subscribe(() => store.restart());
      // term 1 from 1, lost at 12; the next campaign would start at 112
      cold('20ms a').subscribe(() => controller.abort(reason));
      expectObservable(clients[0]!.leader$('x', { signal: controller.signal, recampaignDelayMs: 100 }).pipe(map(() => 'L')), '^ 150ms !').toBe(
        '- L 18ms #',
        undefined,
        reason,
      );
    });
  });

  it('ends with ClientClosedError as soon as the client closes while waiting out recampaignDelayMs', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.restart());
      // term 1 from 1, lost at 12; the next campaign would start at 112
      cold('20ms a').subscribe(() => void clients[0]!.close());
      expectObservable(clients[0]!.leader$('x', { recampaignDelayMs: 100 }).pipe(map(() => 'L')), '^ 150ms !').toBe(
        '- L 18ms #',
        undefined,
        new ClientClosedError('x'),
      );
    });
  });
});
