import { describe, expect, it } from 'vitest';
import type { Holder, LockObject, QueuedWaiter } from '../../src/cli/inspect/LockObject.js';
import { WatchState } from '../../src/cli/watch/WatchState.js';

function lock(name: string, holders: string[], waiters: { queued?: QueuedWaiter[]; clients?: number } = {}): LockObject {
  return {
    name,
    kind: 'lock',
    ttlMs: 30_000,
    holders: holders.map((id): Holder => ({ id, holds: 1 })),
    waiters: { queued: waiters.queued ?? [], queuedCount: waiters.queued?.length ?? 0, subscribedClients: waiters.clients ?? 0 },
    fencingToken: null,
    handoff: null,
  };
}

const latch = (name: string): LockObject => ({
  name,
  kind: 'latch',
  ttlMs: null,
  count: 2,
  holders: [],
  waiters: { queued: [], queuedCount: 0, subscribedClients: 0 },
});

describe('WatchState: what changed between refreshes', () => {
  it('counts holders that were not there before as handoffs, over the rate window, also across a moment without holder', () => {
    const state = new WatchState({ rateWindowMs: 10_000 });
    expect(state.update([lock('a', ['x:1'])], 0).handoffsPerSecond).toBeUndefined();
    expect(state.update([lock('a', ['x:1'])], 1_000).rows[0]?.handoffsPerSecond).toBe(0);
    expect(state.update([lock('a', ['x:2'])], 2_000).rows[0]?.handoffsPerSecond).toBe(0.5);
    // Released (the key is gone) and taken by x:3: still one handoff.
    state.update([], 3_000);
    const frame = state.update([lock('a', ['x:3'])], 4_000);
    expect(frame.rows[0]?.handoffsPerSecond).toBe(0.5);
    expect(frame.handoffsPerSecond).toBe(0.5);
    // The same holder again is no handoff; after the window the rate falls back.
    expect(state.update([lock('a', ['x:3'])], 14_500).rows[0]?.handoffsPerSecond).toBe(0);
  });

  it('marks objects that appeared or went for the highlight time; gone ones stay listed that long', () => {
    const state = new WatchState({ highlightMs: 3_000 });
    expect(state.update([lock('a', ['x:1'])], 0).rows.map((row) => row.change)).toEqual([undefined]);
    let frame = state.update([lock('b', ['y:1'])], 1_000);
    expect(frame.rows.map((row) => [row.object.name, row.change])).toEqual([
      ['a', 'gone'],
      ['b', 'new'],
    ]);
    expect(frame.held).toBe(1);
    frame = state.update([lock('b', ['y:1'])], 4_500);
    expect(frame.rows.map((row) => [row.object.name, row.change])).toEqual([['b', undefined]]);
  });

  it('takes the longest wait from Redis when it is recorded, else times waiters from the refresh that first saw them', () => {
    const state = new WatchState();
    state.update([lock('fair', ['x:1'], { queued: [{ id: 'w:1', position: 1, timeoutMs: 9_000 }] }), lock('plain', ['x:2'], { clients: 2 })], 1_000);
    const frame = state.update(
      [
        lock('fair', ['x:1'], {
          queued: [
            { id: 'w:1', position: 1, timeoutMs: 8_000 },
            { id: 'w:2', position: 2, timeoutMs: 9_000 },
          ],
        }),
        lock('plain', ['x:2'], { clients: 2 }),
        lock('rx', ['x:3'], { queued: [{ id: 'r:1', position: 1, waitedMs: 7_000 }] }),
        latch('l'),
      ],
      3_500,
    );
    const waits = Object.fromEntries(frame.rows.map((row) => [row.object.name, row.longestWait]));
    expect(waits).toEqual({
      fair: { ms: 2_500, who: 'w:1', exact: false },
      plain: { ms: 2_500, who: undefined, exact: false },
      rx: { ms: 7_000, who: 'r:1', exact: true },
      l: undefined,
    });
    expect(frame.waiting).toBe(2 + 2 + 1);
    expect(frame.rows.find((row) => row.object.name === 'l')?.handoffsPerSecond).toBeUndefined();
  });

  it('keeps the last rows with the error when a refresh fails', () => {
    const state = new WatchState();
    state.update([lock('a', ['x:1'])], 0);
    const frame = state.failed(new Error('Connection is closed.'));
    expect(frame).toMatchObject({ error: 'connection lost (Connection is closed.)', held: 1, handoffsPerSecond: undefined });
    expect(frame.rows.map((row) => row.object.name)).toEqual(['a']);
  });
});
