import { filter, from, lastValueFrom, type Observable } from 'rxjs';
import { expect, it } from 'vitest';
import { withLease$, type LockClient } from '../../src/index.js';
import { describeStores } from '../support/fixtures.js';
import { sleep } from '../support/leaks.js';

/**
 * Runs `result` to its end, logging `released` when the client's events$ reports a confirmed release of
 * `name` and `completed` when the result completes: the release must come first.
 */
async function runLogged<T>(client: LockClient, name: string, result: Observable<T>): Promise<{ values: T[]; log: string[] }> {
  const log: string[] = [];
  const events = client.events$.pipe(filter((event) => event.type === 'released' && event.name === name)).subscribe(() => log.push('released'));
  const values: T[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      result.subscribe({ next: (value) => values.push(value), error: reject, complete: () => (log.push('completed'), resolve()) });
    });
  } finally {
    events.unsubscribe();
  }
  return { values, log };
}

/** Finite work that takes a while, reading `probe` while the lease is held. */
function work<P>(probe: () => Promise<P>): Observable<P> {
  return from(
    (async () => {
      await sleep(20);
      return probe();
    })(),
  );
}

describeStores('withLease$ contract', (fixture) => {
  it('writeLock$: the write lock is free once the result completed, and the release was confirmed first', async () => {
    const f = fixture();
    const [client, other] = [f.client(), f.client()];
    const { values, log } = await runLogged(
      client,
      'catalog',
      withLease$(client.writeLock$('catalog', { waitMs: 5_000 }), () => work(async () => (await f.hgetall('catalog'))['mode'])),
    );
    expect(values).toEqual(['write']);
    expect(log).toEqual(['released', 'completed']);
    // Free at once: no wait, no retry (the trap, writeLock$.pipe(switchMap(work)), kept it held for good).
    expect(await f.hgetall('catalog')).toEqual({});
    const next = await lastValueFrom(withLease$(other.writeLock$('catalog', { waitMs: 0 }), () => from(['taken'])));
    expect(next).toBe('taken');
  });

  it('semaphore: the permits are back once the result completed, and the release was confirmed first', async () => {
    const f = fixture();
    const client = f.client();
    const pool = client.semaphore('renderers');
    await pool.trySetPermits(5);
    const { values, log } = await runLogged(
      client,
      'renderers',
      withLease$(pool.acquire$(3, { waitMs: 5_000 }), () => work(() => pool.availablePermits())),
    );
    expect(values).toEqual([2]);
    expect(log).toEqual(['released', 'completed']);
    expect(await pool.availablePermits()).toBe(5);
    await pool.delete();
  });

  it('fairLock$: the lock is free once the result completed, also after an error from the work', async () => {
    const f = fixture();
    const [client, other] = [f.client(), f.client()];
    const { values, log } = await runLogged(
      client,
      'ledger',
      withLease$(client.fairLock$('ledger'), () => work(async () => Object.keys(await f.hgetall('ledger')).length)),
    );
    expect(values).toEqual([1]);
    expect(log).toEqual(['released', 'completed']);
    expect(await f.hgetall('ledger')).toEqual({});

    const failing = withLease$(client.fairLock$('ledger'), () => from(Promise.reject(new Error('boom'))));
    await expect(lastValueFrom(failing)).rejects.toThrow('boom');
    expect(await f.hgetall('ledger')).toEqual({});
    expect(await lastValueFrom(withLease$(other.fairLock$('ledger', { waitMs: 0 }), () => from(['taken'])))).toBe('taken');
  });
});
