import type { LeaseHandle } from '../../src/index.js';
import { rxlock } from '../rxlock.js';
import type { Contender } from './Contender.js';

/** rxlock's plain lock through its promise API: `acquire` resolves with a handle, `release` resolves once Redis confirmed. */
export const rxlockLock: Contender = {
  id: 'rxlock',
  label: 'rxlock lock',
  settings:
    'rxlock (dist/), one `createLockClient({ redis })` per worker (its own command connection plus the pub/sub connection it duplicates), defaults: watchdogTimeoutMs 30000, handoffMs 100. `const handle = await client.acquire(key)`, `await handle.release()` (the promise form of `lock$`: the same hold, released when Redis confirmed).',
  excludes: true,
  unavailable: () => Promise.resolve(undefined),
  open({ key, connect }) {
    const client = rxlock.createLockClient({ redis: connect() });
    let handle: LeaseHandle | undefined;
    return Promise.resolve({
      acquire: async () => {
        handle = await client.acquire(key);
        return true;
      },
      release: async () => {
        const held = handle;
        handle = undefined;
        await held?.release();
      },
      close: () => client.close(),
    });
  },
};
