import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { createMemoryStore, createTestScheduler, VirtualTimeLimitError } from '../src/testing.js';

describe('rxlock/testing createTestScheduler (issue 41, item 8)', () => {
  it('stops a marble test of a never-ending lock stream with a clear error instead of spinning for ever', () => {
    const scheduler = createTestScheduler({ maxFrames: 5_000 });
    expect(() =>
      scheduler.run(({ expectObservable }) => {
        const store = createMemoryStore({ scheduler, latencyMs: 1 });
        const client = createLockClient({ store, scheduler, clientId: 'c1', watchdogTimeoutMs: 300 });
        // No unsubscription marble: the watchdog would renew for ever.
        expectObservable(client.lock$('x').pipe(map(() => 'h'))).toBe('-h');
      }),
    ).toThrow(VirtualTimeLimitError);
  });

  it('runs a bounded marble test as RxJS’s TestScheduler does', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ expectObservable }) => {
      const store = createMemoryStore({ scheduler, latencyMs: 1 });
      const client = createLockClient({ store, scheduler, clientId: 'c1' });
      expectObservable(client.lock$('x').pipe(map(() => 'h')), '^ 10ms !').toBe('-h');
    });
  });

  it('refuses a maxFrames that is not a positive number', () => {
    expect(() => createTestScheduler({ maxFrames: 0 })).toThrow(RangeError);
  });
});
