import { Observable, Subject } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { WakeHub, type WakePolicy } from '../src/engine/WakeHub.js';
import { GrantMailbox } from '../src/engine/handOff/GrantMailbox.js';
import type { ChannelEvent, StoreConnection } from '../src/store/Store.js';
import { createTestScheduler } from './helpers.js';

/** A connection whose one channel the test drives by hand. */
function handDriven(): { connection: Pick<StoreConnection, 'listen'>; channel: Subject<ChannelEvent> } {
  const channel = new Subject<ChannelEvent>();
  return { connection: { listen: () => channel }, channel };
}

const byTicket: WakePolicy = (message) => ({ wake: 'id', id: message });

describe('WakeHub: a message that names a waiter before the waiter learnt its id', () => {
  // The unlock message and the reply that tells a waiter its ticket come on two connections: either may be first.
  it('wakes the waiter when it learns the id, and only that waiter', () => {
    const ts = createTestScheduler();
    ts.run(({ flush }) => {
      const { connection, channel } = handDriven();
      const hub = new WakeHub(connection as StoreConnection, ts, new GrantMailbox());
      const woken: string[] = [];
      const a = hub.join('ch', 'a', byTicket, { onReady: () => woken.push('a ready'), onWake: () => woken.push('a woken'), onWakeLater: () => undefined });
      const b = hub.join('ch', 'b', byTicket, { onReady: () => woken.push('b ready'), onWake: () => woken.push('b woken'), onWakeLater: () => undefined });
      channel.next({ type: 'ready' });
      channel.next({ type: 'message', message: '1700' });
      channel.next({ type: 'message', message: '9999' }); // another client's waiter
      expect(woken).toEqual(['a ready', 'b ready']);
      b.identify('1700');
      expect(woken).toEqual(['a ready', 'b ready', 'b woken']);
      a.identify('1800');
      flush();
      expect(woken).toEqual(['a ready', 'b ready', 'b woken']);
      a.leave(false);
      b.leave(true);
    });
  });

  it('wakes a waiter that joins under an id a message already named', () => {
    const ts = createTestScheduler();
    ts.run(({ flush }) => {
      const { connection, channel } = handDriven();
      const hub = new WakeHub(connection as StoreConnection, ts, new GrantMailbox());
      const woken: string[] = [];
      const first = hub.join('ch', 'first', byTicket, { onReady: () => undefined, onWake: () => woken.push('first'), onWakeLater: () => undefined });
      channel.next({ type: 'ready' });
      channel.next({ type: 'message', message: '42' });
      const late = hub.join('ch', '42', byTicket, { onReady: () => undefined, onWake: () => woken.push('late'), onWakeLater: () => undefined });
      flush();
      expect(woken).toEqual(['late']);
      first.leave(false);
      late.leave(true);
      expect(hub.channelCount).toBe(0);
    });
  });
});

describe('WakeHub: the grace period of a channel nobody waits on', () => {
  const idle = { onReady: () => undefined, onWake: () => undefined, onWakeLater: () => undefined };

  it('keeps a line that empties and refills subscribed, drops it a grace period after its last waiter left, with one timer at a time', () => {
    const ts = createTestScheduler();
    ts.run(({ flush }) => {
      let subscriptions = 0;
      let unsubscriptions = 0;
      const connection = {
        listen: () =>
          new Observable<ChannelEvent>(() => {
            subscriptions++;
            return () => unsubscriptions++;
          }),
      };
      const hub = new WakeHub(connection as unknown as StoreConnection, ts, new GrantMailbox());
      const timers = countTimers(ts);
      // A waiter every 10 ms for 1 s, each leaving 5 ms after it joined: the line is empty half the time.
      for (let at = 0; at < 1_000; at += 10) {
        ts.schedule(() => {
          const ticket = hub.join('ch', `w${String(at)}`, byTicket, idle, { graceMs: 100 });
          ts.schedule(() => ticket.leave(true), 5);
        }, at);
      }
      ts.schedule(() => expect(hub.channelCount).toBe(1), 1_094);
      ts.schedule(() => expect(hub.channelCount).toBe(0), 1_096);
      flush();
      expect([subscriptions, unsubscriptions]).toEqual([1, 1]);
      // 200 scheduled by the test itself; the hub's grace checks stay within a few per 100 ms grace period.
      expect(timers.count - 200).toBeLessThanOrEqual(2 * 11);
    });
  });
});

describe('WakeHub: a line dropped at once while a grace timer runs', () => {
  it('cancels that timer, so that nothing is left scheduled', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { connection } = handDriven();
      const hub = new WakeHub(connection as StoreConnection, ts, new GrantMailbox());
      const idle = { onReady: () => undefined, onWake: () => undefined, onWakeLater: () => undefined };
      hub.join('ch', 'a', byTicket, idle, { graceMs: 5_000 }).leave(true);
      hub.join('ch', 'b', byTicket, idle, { graceMs: 0 }).leave(true);
      expect(hub.channelCount).toBe(0);
      expect(ts.actions).toHaveLength(0);
    });
  });
});

describe('WakeHub: a waiter that leaves after its client closed every line', () => {
  it('schedules nothing and subscribes nothing again', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      let subscriptions = 0;
      const connection = {
        listen: () =>
          new Observable<ChannelEvent>(() => {
            subscriptions++;
          }),
      };
      const hub = new WakeHub(connection as unknown as StoreConnection, ts, new GrantMailbox());
      const idle = { onReady: () => undefined, onWake: () => undefined, onWakeLater: () => undefined };
      const ticket = hub.join('ch', 'a', byTicket, idle, { graceMs: 5_000 });
      hub.closeAll();
      ticket.leave(true);
      expect(hub.channelCount).toBe(0);
      expect(ts.actions).toHaveLength(0);
      expect(subscriptions).toBe(1);
    });
  });
});

/** Counts the actions scheduled on `scheduler` from now on. */
function countTimers(scheduler: TestScheduler): { readonly count: number } {
  const counter = { count: 0 };
  const schedule = scheduler.schedule.bind(scheduler);
  scheduler.schedule = ((...args: Parameters<TestScheduler['schedule']>) => {
    counter.count++;
    return schedule(...args);
  }) as TestScheduler['schedule'];
  return counter;
}
