import { filter, map, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockLostError, LockTimeoutError } from '../src/index.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('lock$ in virtual time (memory store, 1 ms latency)', () => {
  it('emits the lease one round trip after subscribing, and never completes', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.lock$('a').pipe(map(() => 'L')), '^ 50ms !').toBe('- L');
    });
  });

  it('renews every third of the watchdog timeout while held, batched on one client timer', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1, { watchdogTimeoutMs: 30 });
      const [client] = clients;
      expectObservable(client!.lock$('a').pipe(map(() => 'L')), '^ 40ms !').toBe('- L');
      const renewed = client!.events$.pipe(
        filter((e) => e.type === 'renewed'),
        map(() => 'r'),
      );
      expectObservable(renewed, '^ 45ms !').toBe('12ms r 9ms r 9ms r');
    });
  });

  it('does not renew a lock with a fixed leaseMs, and errors with LockLostError just before it runs out', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      const [client] = clients;
      // deadline = sent (0) + 50 - (ceil(50 * 0.01) + 2) = 47
      expectObservable(client!.lock$('a', { leaseMs: 50 }).pipe(map(() => 'L')), '^ 80ms !').toBe(
        '- L 45ms #',
        undefined,
        new LockLostError('a', '#1', 'expired'),
      );
      expectObservable(client!.events$.pipe(filter((e) => e.type === 'renewed')), '^ 80ms !').toBe('');
    });
  });

  it('hands the lock to a waiter in the frame the holder’s release message reaches it', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      expectObservable(holder!.lock$('a').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      // release sent at 20, runs at 21 and hands the lock over; its message arrives at 22 with the grant
      expectObservable(waiter!.lock$('a').pipe(map(() => 'W')), '--- ^ 30ms !').toBe('22ms W');
    });
  });

  it('a waiter handed the lock that lets go in its first callback releases it, and leaves no key or subscription behind', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      expectObservable(holder!.lock$('a').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      // handed the lock at 22, the waiter lets go inside that emission: its release runs at 23
      expectObservable(
        waiter!.lock$('a').pipe(
          take(1),
          map(() => 'W'),
        ),
        '--- ^ 30ms !',
      ).toBe('22ms (W|)');
      const released = waiter!.events$.pipe(
        filter((e) => e.type === 'released'),
        map(() => 'R'),
      );
      expectObservable(released, '^ 30ms !').toBe('23ms R');
      const channels = ['redisson_lock__channel:{a}', 'redisson_lock__channel:{a}:c2'];
      // the waiter's channels stay subscribed for their 5 s grace after its wait ended, then go
      const left = cold('22ms a 5s b', {}).pipe(map(() => `${store.db.keys().join(',')}|${channels.map((c) => store.db.numsub(c)).join(',')}`));
      expectObservable(left).toBe('22ms a 5s b', { a: 'a|1,1', b: '|0,0' });
    });
  });

  it('wakes a waiter one round trip later when its client cannot take a direct hand-off (replica acknowledgements)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2, { replicas: 1 });
      const [holder, waiter] = clients;
      expectObservable(holder!.lock$('a').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      // release sent at 20, runs at 21 and reserves the lock; its message arrives at 22, the woken attempt is answered at 23
      expectObservable(waiter!.lock$('a').pipe(map(() => 'W')), '--- ^ 30ms !').toBe('23ms W');
    });
  });

  it('wakes a waiter when the holder’s key expires although nothing was published', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      // A holder that vanished: its key is there, it will never unlock.
      store.db.hset('a', 'ghost:1', '1');
      store.db.pexpire('a', 25);
      // attempt at 0 sees ttl 24 at frame 1; the fallback fires at 25 and is answered at 26
      expectObservable(clients[0]!.lock$('a').pipe(map(() => 'W')), '^ 40ms !').toBe('26ms W');
    });
  });

  it('errors with LockTimeoutError in the waitMs frame', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      expectObservable(holder!.lock$('a').pipe(map(() => 'H')), '^ 30ms !').toBe('- H');
      expectObservable(waiter!.lock$('a', { waitMs: 10 }), '-- ^ 30ms !').toBe('12ms #', undefined, new LockTimeoutError('a', 10));
    });
  });

  it('with waitMs 0 tries once', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      expectObservable(holder!.lock$('a').pipe(map(() => 'H')), '^ 30ms !').toBe('- H');
      expectObservable(waiter!.lock$('a', { waitMs: 0 }), '-- ^ 30ms !').toBe('---#', undefined, new LockTimeoutError('a', 0));
    });
  });

  it('releases at the unsubscribe frame', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      expectObservable(client!.lock$('a').pipe(map(() => 'L')), '^ 9ms !').toBe('- L');
      // the release is sent at the unsubscribe frame (10) and confirmed one round trip later
      const released = client!.events$.pipe(
        filter((e) => e.type === 'released'),
        map(() => 'R'),
      );
      expectObservable(released, '^ 20ms !').toBe('11ms R');
      const keys = cold('9ms a 2ms b', {}).pipe(map(() => store.db.keys().join(',')));
      expectObservable(keys).toBe('9ms a 2ms b', { a: 'a', b: '' });
    });
  });

  it('releases a grant that arrives after the subscriber left', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.lock$('a'), '^!').toBe('');
      const keys = cold('a 0ms b 1ms c', {}).pipe(map(() => store.db.keys().join(',')));
      // granted at 1 (reply ignored), compensating release sent at 1 runs at 2
      expectObservable(keys).toBe('a 0ms b 1ms c', { a: '', b: 'a', c: '' });
    });
  });

  it('counts reentrant holds of one owner and frees the lock only when all are released', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [client, other] = clients;
      expectObservable(client!.lock$('a', { owner: 'job' }).pipe(map(() => '1')), '^ 19ms !').toBe('- 1');
      expectObservable(client!.lock$('a', { owner: 'job' }).pipe(map(() => '2')), '-- ^ 27ms !').toBe('---2');
      expectObservable(other!.lock$('a').pipe(map(() => 'O')), '----^ 40ms !').toBe('32ms O');
      const count = cold('5ms a 19ms b 6ms c', {}).pipe(map(() => store.db.hget('a', 'c1:job')));
      expectObservable(count).toBe('5ms a 19ms b 6ms c', { a: '2', b: '1', c: null });
    });
  });

  it('errors with LockLostError (unconfirmed) at the local deadline when renewals go unanswered', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.setFault('blackhole'));
      // sent at 0, ttl 30, drift ceil(0.3) + 2 = 3: deadline 27
      expectObservable(clients[0]!.lock$('a').pipe(map(() => 'L')), '^ 60ms !').toBe('- L 25ms #', undefined, new LockLostError('a', '#1', 'unconfirmed'));
    });
  });

  it('errors with LockLostError (not-held) at the renewal that finds the key gone', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1);
      cold('5ms a').subscribe(() => store.restart());
      // renewal sent at 11, answered at 12
      expectObservable(clients[0]!.lock$('a').pipe(map(() => 'L')), '^ 60ms !').toBe('- L 10ms #', undefined, new LockLostError('a', '#1', 'not-held'));
    });
  });

  it('after an attempt of unknown outcome, tries again only once its compensating release was answered', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 1, { commandTimeoutMs: 10 });
      store.setFault('blackhole');
      cold('25ms a').subscribe(() => store.setFault('none'));
      // Timeouts are swept every 3 ms. The attempt sent at 0 times out at 12; the compensation sent then times out
      // at 24, is sent again after a 50 ms back-off (74) and answered at 75. Only then the retry, after a 100 ms
      // back-off: sent at 175, granted at 176 (without waiting for the compensation it would have been 63).
      // (With a waitMs: without one, an acquisition that Redis leaves unanswered for commandTimeoutMs gives up.)
      expectObservable(clients[0]!.lock$('a', { waitMs: 1_000 }).pipe(map(() => 'L')), '^ 200ms !').toBe('176ms L');
    });
  });

  it('close() also cancels a renewal retry pending after a failed renewal: no timer outlives the client', async () => {
    // Not in run(): close() goes on after awaits, which only settle between flushes.
    const ts = createTestScheduler();
    const { store, clients } = memoryClients(ts, 1, { watchdogTimeoutMs: 300 });
    const [client] = clients;
    const advanceTo = async (ms: number): Promise<void> => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
      ts.maxFrames = ms;
      ts.flush();
      ts.frame = Math.max(ts.frame, ms);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    const errors: unknown[] = [];
    client!.lock$('a').subscribe({ error: (error: unknown) => errors.push(error) });
    await advanceTo(50);
    store.setFault('unavailable');
    // The renewal at 100 fails; its retry is due at 130.
    await advanceTo(105);
    store.setFault('none');
    const closing = client!.close();
    await advanceTo(110);
    await closing;
    expect(errors).toEqual([new LockLostError('a', '#1', 'closed')]);
    expect(ts.actions.map((action) => action.delay)).toEqual([]);
  });
});
