import { defer, map, repeat, switchMap, take, takeUntil, tap, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError, type LockClient } from '../src/index.js';
import { createTestScheduler, memoryClients } from './helpers.js';

const QUEUE = 'redisson_lock_queue:{f}';
const TIMEOUTS = 'redisson_lock_timeout:{f}';

/** One turn on the fair lock: acquire, hold `holdMs`, release (by completing). */
function turn(client: LockClient, holdMs: number, onGrant: () => void) {
  return client.fairLock$('f').pipe(
    tap(onGrant),
    switchMap(() => timer(holdMs)),
    take(1),
  );
}

describe('fairLock$ in virtual time (memory store, 1 ms latency)', () => {
  it('emits the lease one round trip after subscribing, and never completes', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 1);
      expectObservable(clients[0]!.fairLock$('f').pipe(map(() => 'L')), '^ 50ms !').toBe('- L');
    });
  });

  it('hands the lock to the head in the frame the release’s message arrives, without an attempt of its own', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 3);
      const [holder, next, last] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      // release sent at 20, runs at 21 and hands over; its message arrives at 22: granted there (lock$ needs 23)
      expectObservable(next!.fairLock$('f').pipe(map(() => 'N')), '-- ^ 29ms !').toBe('22ms N');
      expectObservable(last!.fairLock$('f').pipe(map(() => 'L')), '--- ^ 40ms !').toBe('34ms L');
      const owners = cold('22ms a 11ms b', {}).pipe(map(() => store.db.hkeys('f').join(',')));
      expectObservable(owners).toBe('22ms a 11ms b', { a: 'c2:#1', b: 'c3:#1' });
    });
  });

  it('grants 8 clients that start 100 ms apart in that order, one after the other', () => {
    const ts = createTestScheduler();
    const grants: [number, number][] = [];
    ts.run(({ expectObservable }) => {
      // A long watchdog TTL: waiters then look again only every third of the waiter timeout, not while this runs.
      const { clients } = memoryClients(ts, 9, { watchdogTimeoutMs: 30_000 });
      const [holder, ...waiters] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 999ms !').toBe('- H');
      waiters.forEach((client, index) => {
        timer(100 * (index + 1))
          .pipe(switchMap(() => turn(client, 10, () => grants.push([index, ts.now()]))))
          .subscribe();
      });
    });
    // The holder's release (1000) hands over at 1001, heard at 1002; each turn then takes 10 ms plus a release and its message.
    expect(grants).toEqual(Array.from({ length: 8 }, (_, index) => [index, 1002 + 12 * index]));
  });

  it('counts a handed-over lease from the hand-off, not from when its message was heard', () => {
    const ts = createTestScheduler();
    const deadlines: number[] = [];
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      expectObservable(clients[0]!.fairLock$('f').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      const handed = clients[1]!.fairLock$('f', { leaseMs: 50 }).pipe(tap((lease) => deadlines.push(lease.deadline)));
      expectObservable(handed.pipe(map(() => 'W')), '-- ^ 30ms !').toBe('22ms W');
    });
    // The key's 50 ms started with the hand-off at 21 (heard at 22): the lease must end by 21 + 50 - 3 (drift).
    // Locally the waiter only knows its last queued attempt (sent at 4, run at 5) and the server time between.
    const [deadline = NaN] = deadlines;
    expect(deadline).toBeLessThanOrEqual(21 + 50 - 3);
    expect(deadline).toBeGreaterThan(21 + 50 - 3 - 2);
  });

  it('carries the fencing token of a hand-off in its message', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 3);
      const tokens = (client: LockClient) => client.fairLock$('f', { fencing: true }).pipe(map((lease) => lease.token));
      expectObservable(tokens(clients[0]!), '^ 9ms !').toBe('- a', { a: 1 });
      expectObservable(tokens(clients[1]!), '- ^ 20ms !').toBe('12ms b', { b: 2 });
      expectObservable(tokens(clients[2]!), '-- ^ 30ms !').toBe('24ms c', { c: 3 });
    });
  });

  it('passes a hand-off on when its waiter left before the message arrived', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 3);
      const [holder, leaver, next] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      // The release runs at 21 and hands the lock to the leaver, which unsubscribed at 21: its leave runs at 22,
      // releases the hand-off and hands the lock to the next waiter, which hears it at 23.
      expectObservable(leaver!.fairLock$('f'), '- ^ 19ms !').toBe('');
      expectObservable(next!.fairLock$('f').pipe(map(() => 'N')), '-- ^ 30ms !').toBe('23ms N');
      const owners = cold('21ms a 0ms b 0ms c', {}).pipe(map(() => store.db.hkeys('f').join(',')));
      expectObservable(owners).toBe('21ms a 0ms b 0ms c', { a: 'c1:#1', b: 'c2:#1', c: 'c3:#1' });
    });
  });

  it('gives back a hand-off that reaches an acquisition whose leave was lost', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 3);
      const [holder, leaver, next] = clients;
      // The network drops everything sent from 9 to 10, among it the leaver's leave (sent at 10).
      cold('9ms a 1ms b').subscribe((event) => store.setFault(event === 'a' ? 'blackhole' : 'none'));
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 19ms !').toBe('- H');
      expectObservable(leaver!.fairLock$('f'), '- ^ 8ms !').toBe('');
      // The release (21) hands the lock to the leaver's place; its client hears that at 22, finds nobody
      // waiting for it and gives it back (23), which hands it to the next waiter: heard at 24.
      expectObservable(next!.fairLock$('f').pipe(map(() => 'N')), '-- ^ 30ms !').toBe('24ms N');
    });
  });

  it('passes a dead waiter at the head once its deadline has passed, not before', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1, { fairLockWaiterTimeoutMs: 300 });
      // A waiter whose client died: a place at the head and a deadline (200), nothing that answers.
      store.db.rpush(QUEUE, 'ghost:1');
      store.db.zadd(TIMEOUTS, 200, 'ghost:1');
      // Queued behind it, the live waiter looks again every third of the share (100 ms) and at the ghost's
      // deadline: its attempt at 200 drops the ghost and takes the lock (one round trip: 201).
      expectObservable(clients[0]!.fairLock$('f').pipe(map(() => 'L')), '^ 250ms !').toBe('201ms L');
    });
  });

  it('takes a waiter that times out out of the line at once, and shrinks the deadline behind it by one share', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 3, { fairLockWaiterTimeoutMs: 1_000 });
      const [holder, quitter, stayer] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 100ms !').toBe('- H');
      expectObservable(quitter!.fairLock$('f', { waitMs: 49 }), '- ^ 100ms !').toBe('- 49ms #', undefined, new LockTimeoutError('f', 49));
      expectObservable(stayer!.fairLock$('f').pipe(map(() => 'S')), '-- ^ 150ms !').toBe('103ms S');
      // The stayer queued at 3, second in line; its refresh when its channel was confirmed (5) set its deadline
      // to 5 + 2 * 1000. The quitter's leave is sent at 50 and runs at 51: one place and one share less.
      const line = cold('50ms a 1ms b', {}).pipe(map(() => [store.db.lrange(QUEUE).join(','), store.db.zscore(TIMEOUTS, 'c3:#1')]));
      expectObservable(line).toBe('50ms a 1ms b', { a: ['c2:#1,c3:#1', 2_005], b: ['c3:#1', 1_005] });
    });
  });

  it('leaves no place behind when unsubscribed while its first attempt is in flight', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, quitter] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 10ms !').toBe('- H');
      expectObservable(quitter!.fairLock$('f'), '- (^!)').toBe('');
      // The attempt (sent at 1) queues at 2; the leave sent right behind it runs at 2 too.
      const line = cold('--a', {}).pipe(map(() => store.db.lrange(QUEUE).length + store.db.keys().filter((key) => key.includes('fair')).length));
      expectObservable(line).toBe('--a', { a: 0 });
    });
  });

  it('costs two commands per acquisition in a busy loop: the attempt that queues and the release', () => {
    const ts = createTestScheduler();
    /** Commands sent by all clients so far, at each grant. */
    const commandsAtGrant: number[] = [];
    ts.run(() => {
      const { store, clients } = memoryClients(ts, 3, { watchdogTimeoutMs: 30_000 });
      for (const client of clients) {
        defer(() => turn(client, 5, () => commandsAtGrant.push(store.commandCount)))
          .pipe(repeat(), takeUntil(timer(500)))
          .subscribe();
      }
    });
    // Past the first rounds (each client's first wait subscribes its channel once), grant after grant.
    const [from = 0, to = 0] = [commandsAtGrant[10], commandsAtGrant[60]];
    expect(commandsAtGrant.length).toBeGreaterThan(60);
    expect((to - from) / 50).toBe(2);
  });

  it('keeps a waiter’s channel subscribed for a grace period after the wait, then drops it', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, waiter] = clients;
      expectObservable(holder!.fairLock$('f').pipe(map(() => 'H')), '^ 9ms !').toBe('- H');
      expectObservable(waiter!.fairLock$('f').pipe(map(() => 'W')), '- ^ 20ms !').toBe('12ms W');
      const channels = cold('5ms a 100ms b 5000ms c', {}).pipe(map(() => store.subscriptionCount()));
      expectObservable(channels).toBe('5ms a 100ms b 5000ms c', { a: 1, b: 1, c: 0 });
    });
  });

  it('gives an owner to the next acquisition once its subscription ends, granted or not, and never to two holds at once', () => {
    const ts = createTestScheduler();
    const owners: [string, number][] = [];
    ts.run(() => {
      const { clients } = memoryClients(ts, 2);
      const [client, other] = clients;
      const held = (delayMs: number, holdMs: number, label: string) =>
        timer(delayMs)
          .pipe(
            switchMap(() => client!.fairLock$('f').pipe(tap((lease) => owners.push([`${label} ${lease.owner}`, ts.now()])))),
            takeUntil(timer(delayMs + holdMs)),
          )
          .subscribe();
      other!
        .fairLock$('f')
        .pipe(takeUntil(timer(10)))
        .subscribe();
      held(1, 3, 'cancelled while waiting'); // never granted: its owner goes back at 4
      held(5, 25, 'first'); // granted once the other client releases, held until 30
      held(20, 30, 'second'); // subscribes while the first holds: another owner
      held(60, 10, 'third'); // after both ended: an owner they gave back
    });
    // Owners and wait ids share one counter: the cancelled acquisition took owner #1 (wait id #2), the first reused
    // it (wait id #3), the second took #4 (wait id #5), the third reused the last one given back.
    expect(owners.map(([label]) => label)).toEqual(['first #1', 'second #4', 'third #4']);
  });
});
