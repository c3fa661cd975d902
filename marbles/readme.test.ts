import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { createMemoryStore } from '../src/testing.js';

// The README's "Testing your own code" example, verbatim, so that it cannot rot.
it('runs the README’s marble example', () => {
  const testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  testScheduler.run(({ expectObservable }) => {
    const store = createMemoryStore({ scheduler: testScheduler, latencyMs: 1 });
    const a = createLockClient({ store, scheduler: testScheduler });
    const b = createLockClient({ store, scheduler: testScheduler });
    expectObservable(a.lock$('x').pipe(map(() => 'A')), '^ 19ms !').toBe('- A'); // granted after one round trip
    expectObservable(b.lock$('x').pipe(map(() => 'B')), '--- ^ 30ms !').toBe('22ms B'); // handed over by A's release
  });
});
