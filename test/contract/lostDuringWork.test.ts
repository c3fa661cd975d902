import { lastValueFrom } from 'rxjs';
import { expect, it } from 'vitest';
import { LockLostError, withLease$, type LockClient, type LockEvent } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';

/** The watchdog timeout of the holders here: short, so that a blocked event loop outlives it. */
const WATCHDOG_MS = 1_000;
/** Longer than the watchdog timeout, as a long GC pause or a synchronous loop would be. */
const BLOCK_MS = 1_600;

/** Blocks the event loop: no timer, reply or message is handled meanwhile, as in a stopped process. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** What a promise settled with: its value, or the error it rejected with. */
async function outcomeOf<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

function lostEvents(client: LockClient): LockEvent[] {
  const lost: LockEvent[] = [];
  client.events$.subscribe((event) => event.type === 'lost' && lost.push(event));
  return lost;
}

describeStores('a lease lost while its work ran reaches the work', (fixture) => {
  const forms: readonly [string, (client: LockClient) => Promise<unknown>][] = [
    ['withLock', (client) => client.withLock('x', () => (blockEventLoop(BLOCK_MS), 'work done'))],
    ['withLock$', (client) => lastValueFrom(client.withLock$('x', () => Promise.resolve((blockEventLoop(BLOCK_MS), 'work done'))))],
    ['withLease$ over fairLock$', (client) => lastValueFrom(withLease$(client.fairLock$('x'), () => Promise.resolve((blockEventLoop(BLOCK_MS), 'work done'))))],
    [
      'withLease$ over writeLock$',
      (client) => lastValueFrom(withLease$(client.writeLock$('x'), () => Promise.resolve((blockEventLoop(BLOCK_MS), 'work done')))),
    ],
    [
      'withLease$ over multiLock$',
      (client) => lastValueFrom(withLease$(client.multiLock$(['x', 'y']), () => Promise.resolve((blockEventLoop(BLOCK_MS), 'work done')))),
    ],
    [
      'withLease$ over a leased semaphore',
      async (client) => {
        await client.leasedSemaphore('x').trySetPermits(1);
        try {
          return await lastValueFrom(withLease$(client.leasedSemaphore('x').acquire$(1), () => Promise.resolve((blockEventLoop(BLOCK_MS), 'work done'))));
        } finally {
          await client.leasedSemaphore('x').delete();
        }
      },
    ],
  ];

  for (const [form, run] of forms) {
    it(`${form}: rejects with LockLostError carrying the work’s result when the event loop was blocked past the lease`, async () => {
      const client = fixture().client({ watchdogTimeoutMs: WATCHDOG_MS });
      const lost = lostEvents(client);
      const { value, error } = await outcomeOf(run(client));
      expect(value).toBeUndefined();
      expect(error).toBeInstanceOf(LockLostError);
      expect((error as LockLostError).result).toBe('work done');
      expect(lost.length).toBeGreaterThanOrEqual(1);
    });
  }

  it('withLock: the work’s own error is the cause of the LockLostError', async () => {
    const client = fixture().client({ watchdogTimeoutMs: WATCHDOG_MS });
    const workError = new Error('work failed');
    const { error } = await outcomeOf(
      client.withLock('x', () => {
        blockEventLoop(BLOCK_MS);
        throw workError;
      }),
    );
    expect(error).toBeInstanceOf(LockLostError);
    expect((error as LockLostError).cause).toBe(workError);
  });

  it('a handle’s release() rejects with LockLostError after the lease’s deadline passed', async () => {
    const client = fixture().client({ watchdogTimeoutMs: WATCHDOG_MS });
    const handle = await client.acquire('x');
    blockEventLoop(BLOCK_MS);
    await expect(handle.release()).rejects.toBeInstanceOf(LockLostError);
  });

  it('lease.signal.aborted is true at the first check after a pause, before any timer of the lease has run', async () => {
    const client = fixture().client({ watchdogTimeoutMs: WATCHDOG_MS });
    const writes: boolean[] = [];
    const failure = await outcomeOf(
      client.withLock('x', async (lease) => {
        // A worker that checks the signal before each step; its own timer comes due before the lease's deadline.
        for (let step = 0; step < 5; step++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          if (step === 2) blockEventLoop(BLOCK_MS);
          if (lease.signal.aborted) return 'stopped';
          writes.push(lease.held);
        }
        return 'finished';
      }),
    );
    expect(writes).toEqual([true, true]);
    // The check itself reported the loss: the promise rejected before the work returned.
    expect(failure.error).toBeInstanceOf(LockLostError);
    expect((failure.error as LockLostError).result).toBeUndefined();
  });
});
