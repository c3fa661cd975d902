import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LockTimeoutError } from '../src/index.js';
import { createTestScheduler, memoryClients } from './helpers.js';

describe('spinLock$ in virtual time (memory store, 1 ms latency)', () => {
  it('polls on its back-off, without pub/sub: attempts at 0, 3, 8, 17 and 26 with pauses of 2, 4, 8, 8 ms', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { store, clients } = memoryClients(ts, 2);
      const [holder, spinner] = clients;
      // The holder has it from 1 and releases at 20 (the release runs at 21).
      expectObservable(holder!.lock$('x').pipe(map(() => 'H')), '^ 20ms !').toBe('-H');
      // Refused at 1, 4, 9 and 18; the attempt sent at 26 is granted at 27.
      expectObservable(spinner!.spinLock$('x', { backOff: { initialMs: 2, maxMs: 8, multiplier: 2, jitter: false } }).pipe(map(() => 'S')), '^ 40ms !').toBe(
        '27ms S',
      );
      ts.schedule(() => expect(store.subscriptionCount()).toBe(0), 15);
    });
  });

  it('Redisson’s constant back-off is { initialMs: d, maxMs: d }', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [holder, spinner] = clients;
      expectObservable(holder!.lock$('x').pipe(map(() => 'H')), '^ 20ms !').toBe('-H');
      // Attempts at 0, 11 and 22 (10 ms apart after each 1 ms refusal): the one at 22 finds it free.
      expectObservable(spinner!.spinLock$('x', { backOff: { initialMs: 10, maxMs: 10, jitter: false } }).pipe(map(() => 'S')), '^ 40ms !').toBe('23ms S');
    });
  });

  it('errors with LockTimeoutError at waitMs', () => {
    const ts = createTestScheduler();
    ts.run(({ expectObservable }) => {
      const { clients } = memoryClients(ts, 2);
      const [holder, spinner] = clients;
      expectObservable(holder!.lock$('x').pipe(map(() => 'H')), '^ 50ms !').toBe('-H');
      expectObservable(spinner!.spinLock$('x', { waitMs: 30, backOff: { jitter: false } }).pipe(map(() => 'S')), '^ 50ms !').toBe(
        '30ms #',
        undefined,
        new LockTimeoutError('x', 30),
      );
    });
  });
});
