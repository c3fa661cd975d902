import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../src/index.js';
import { countDownScript } from '../src/primitives/latch/latchScripts.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('latch(name).await$ in virtual time (memory store)', () => {
  it('completes in the frame the count hits zero (no latency)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 3, {}, 0);
      const [awaiter, first, second] = clients;
      store.db.set('ready', '2');
      expectObservable(
        awaiter!
          .latch('ready')
          .await$()
          .pipe(map(() => 'x')),
        '^ 40ms !',
      ).toBe('10ms (x|)');
      ts.schedule(() => void first!.latch('ready').countDown(), 5);
      ts.schedule(() => void second!.latch('ready').countDown(), 10);
    });
  });

  it('a name with its own hash tag: also tells Redisson’s channel (braces around the whole name), the untagged one once', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1, {}, 0);
      const [counter] = clients;
      const heard = (channel: string) =>
        store
          .connect()
          .listen(channel)
          .pipe(map((event) => (event.type === 'message' ? event.message : 'r')));
      // set at 5 (`1`), counted down at 10 and 15 (`0` when it reaches zero), set again and deleted at 20 and 25 (`1` each)
      expectObservable(heard('redisson_countdownlatch__channel__{app:{t}:gate}'), '^ 30ms !').toBe('r 4ms a 9ms b 4ms c 4ms d', {
        r: 'r',
        a: '1',
        b: '0',
        c: '1',
        d: '1',
      });
      expectObservable(heard('redisson_countdownlatch__channel__app:{t}:gate'), '^ 30ms !').toBe('r 4ms a 9ms b 4ms c 4ms d', {
        r: 'r',
        a: '1',
        b: '0',
        c: '1',
        d: '1',
      });
      expectObservable(heard('redisson_countdownlatch__channel__{gate}'), '^ 30ms !').toBe('r 4ms a 9ms b', { r: 'r', a: '1', b: '0' });
      const tagged = counter!.latch('app:{t}:gate');
      const plain = counter!.latch('gate');
      ts.schedule(() => void (tagged.trySetCount(2), plain.trySetCount(1)), 5);
      ts.schedule(() => void tagged.countDown(), 10);
      ts.schedule(() => void (tagged.countDown(), plain.countDown()), 15);
      ts.schedule(() => void tagged.trySetCount(1), 20);
      ts.schedule(() => void tagged.delete(), 25);
    });
  });

  it('reads the count again when the `0` arrives, and completes on its reply (1 ms latency)', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable, cold }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [awaiter, counter] = clients;
      store.db.set('ready', '1');
      // countDown sent at 10 runs at 11 (the count hits zero), its `0` arrives at 12, the count read then answers at 13
      expectObservable(
        awaiter!
          .latch('ready')
          .await$()
          .pipe(map(() => 'x')),
        '^ 40ms !',
      ).toBe('13ms (x|)');
      ts.schedule(() => void counter!.latch('ready').countDown(), 10);
      expectObservable(cold('10ms a 0ms b', {}).pipe(map(() => store.db.get('ready')))).toBe('10ms a 0ms b', { a: '1', b: '1' });
    });
  });

  it('wakes every awaiter of every client together', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 4);
      const [counter, ...awaiters] = clients;
      store.db.set('ready', '1');
      for (const client of awaiters) {
        for (let i = 0; i < 3; i++)
          expectObservable(
            client
              .latch('ready')
              .await$()
              .pipe(map(() => 'x')),
            '-- ^ 40ms !',
          ).toBe('23ms (x|)');
      }
      ts.schedule(() => void counter!.latch('ready').countDown(), 20);
    });
  });

  it('does not complete on a `0` of the round before that arrives after a new count was set', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2, {}, 5);
      const [awaiter, counter] = clients;
      store.db.set('ready', '1');
      // An earlier awaiter keeps the channel subscribed; it misses the round, as Redisson's awaiters do.
      expectObservable(awaiter!.latch('ready').await$({ waitMs: 60 }), '^ 100ms !').toBe('60ms #', undefined, new LockTimeoutError('ready', 60));
      // Sent at 10, both run at 15: the count hits zero (its `0` arrives at 20) and is set to 2 again.
      ts.schedule(() => {
        void counter!.latch('ready').countDown();
        void counter!.latch('ready').trySetCount(2);
      }, 10);
      // Begins at 17, after the new count, before the old `0` arrives.
      expectObservable(
        awaiter!
          .latch('ready')
          .await$({ waitMs: 50 })
          .pipe(map(() => 'x')),
        '17ms ^ 100ms !',
      ).toBe('67ms #', undefined, new LockTimeoutError('ready', 50));
    });
  });

  it('completes at once when the latch has no count, and errors with LockTimeoutError at waitMs otherwise', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      const [client] = clients;
      expectObservable(
        client!
          .latch('never-set')
          .await$()
          .pipe(map(() => 'x')),
      ).toBe('-(x|)');
      store.db.set('stuck', '3');
      expectObservable(client!.latch('stuck').await$({ waitMs: 15 })).toBe('15ms #', undefined, new LockTimeoutError('stuck', 15));
    });
  });

  it('reads the count again at most a second after a missed message', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 1);
      store.db.set('ready', '1');
      // the key vanishes without a message (as when it is deleted by hand): the blind re-check at 1 s + 3 ms finds no count
      ts.schedule(() => store.db.del('ready'), 100);
      expectObservable(
        clients[0]!
          .latch('ready')
          .await$()
          .pipe(map(() => 'x')),
        '^ 2s !',
      ).toBe('1004ms (x|)');
    });
  });

  it('counts a countDown that runs twice (a re-sent command) once', () => {
    const ts = createTestScheduler();
    ts.run(() => {
      const { store } = memoryClients(ts, 0);
      store.db.set('ready', '3');
      const connection = store.connect();
      const countDown = (op: string) => () =>
        connection.run(countDownScript, ['ready', 'redisson_countdownlatch__channel__{ready}', 'rxlock_ops:{ready}'], [op, 'publish']).subscribe();
      ts.schedule(countDown('op-1'), 0);
      ts.schedule(countDown('op-1'), 1);
      ts.schedule(() => expect(store.db.get('ready')).toBe('2'), 5);
      ts.schedule(countDown('op-2'), 6);
      ts.schedule(countDown('op-3'), 7);
      // the latch opened at 8: its key is gone, the remembered ops stay (they expire by themselves)
      ts.schedule(() => expect(store.db.keys()).toEqual(['rxlock_ops:{ready}']), 9);
      // the next round begins; late copies of the last round's ops, the opening one too, count nothing in it
      ts.schedule(() => store.db.set('ready', '2'), 10);
      ts.schedule(countDown('op-3'), 11);
      ts.schedule(countDown('op-2'), 12);
      ts.schedule(() => expect(store.db.get('ready')).toBe('2'), 15);
    });
  });
});
