import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { createMemoryStore } from '../src/testing.js';

// A user's marble test with rxjs's own TestScheduler (docs/testing.md shows the same with createTestScheduler).
it('hands the lock from one memory-store client to the next in virtual time', () => {
  const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  testScheduler.run(({ expectObservable }) => {
    const store = createMemoryStore({ scheduler: testScheduler, latencyMs: 1 });
    const a = createLockClient({ store, scheduler: testScheduler });
    const b = createLockClient({ store, scheduler: testScheduler });
    expectObservable(a.lock$('x').pipe(map(() => 'A')), '^ 19ms !').toBe('- A'); // granted after one round trip
    expectObservable(b.lock$('x').pipe(map(() => 'B')), '--- ^ 30ms !').toBe('22ms B'); // handed over by A's release
  });
});
