import { asyncScheduler, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { lockAcquireScript } from '../../src/primitives/lock/acquireScript.js';
import { lockKeys } from '../../src/primitives/lock/lockKeys.js';
import type { Vote } from '../../src/redlock/lockVotes.js';
import { QuorumConnection } from '../../src/redlock/QuorumConnection.js';
import { StoreError } from '../../src/store/StoreError.js';
import { createMemoryStore } from '../../src/testing.js';

describe('QuorumConnection', () => {
  it('fails a run whose replies its vote cannot read with an outcome-unknown StoreError, instead of never answering', async () => {
    const stores = [createMemoryStore(), createMemoryStore(), createMemoryStore()];
    const unreadable: Vote = {
      decide: () => {
        throw new TypeError('expected an array reply, got 1');
      },
    };
    const connection = new QuorumConnection(
      stores.map((store) => store.connect()),
      new Map([[lockAcquireScript.sha1, unreadable]]),
      asyncScheduler,
      { instanceTimeoutMs: 1_000, driftFactor: 0.01, driftMs: 2 },
      false,
    );
    const keys = lockKeys('orders').acquireKeys;
    const error = await firstValueFrom(connection.run(lockAcquireScript, keys, [30_000, 'client:#1', 'new', 0])).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).outcomeUnknown).toBe(true);
    expect((error as Error).message).toBe('unexpected reply from lock.acquire: TypeError: expected an array reply, got 1');
    // The script did run on the instances: the engine's compensation (a release everywhere) is what cleans it up.
    expect(stores.every((store) => store.db.exists('orders') === 1)).toBe(true);
  });
});
