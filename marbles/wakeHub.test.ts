import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { WakeHub, type WakePolicy } from '../src/engine/WakeHub.js';
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
      const hub = new WakeHub(connection as StoreConnection, ts);
      const woken: string[] = [];
      const a = hub.join('ch', 'a', byTicket, { onReady: () => woken.push('a ready'), onWake: () => woken.push('a woken') });
      const b = hub.join('ch', 'b', byTicket, { onReady: () => woken.push('b ready'), onWake: () => woken.push('b woken') });
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
      const hub = new WakeHub(connection as StoreConnection, ts);
      const woken: string[] = [];
      const first = hub.join('ch', 'first', byTicket, { onReady: () => undefined, onWake: () => woken.push('first') });
      channel.next({ type: 'ready' });
      channel.next({ type: 'message', message: '42' });
      const late = hub.join('ch', '42', byTicket, { onReady: () => undefined, onWake: () => woken.push('late') });
      flush();
      expect(woken).toEqual(['late']);
      first.leave(false);
      late.leave(true);
      expect(hub.channelCount).toBe(0);
    });
  });
});
