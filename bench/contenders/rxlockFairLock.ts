import { rxlock, rxlockTesting } from '../rxlock.js';
import type { Contender } from './Contender.js';
import { observableLockWorker } from './observableLock.js';
import { FAIR_LOCK } from './rxlockObservables.js';

/** rxlock's fair lock (`fairLock$`): grants in request order across clients. */
export const rxlockFairLock: Contender = {
  id: 'rxlock-fair',
  label: 'rxlock fair',
  settings:
    'rxlock (dist/), one `createLockClient({ redis })` per worker, defaults (watchdogTimeoutMs 30000, fairLockWaiterTimeoutMs 10000). `client.fairLock$(key).subscribe(...)` until the lease arrives; release by unsubscribing, the cycle ends when `events$` reports `released`.',
  excludes: true,
  async unavailable() {
    const probe = rxlock.createLockClient({ store: rxlockTesting.createMemoryStore() });
    const present = FAIR_LOCK.lockOf(probe) !== undefined;
    await probe.close();
    return present ? undefined : 'not available: this build has no fairLock$';
  },
  open({ key, connect }) {
    const client = rxlock.createLockClient({ redis: connect() });
    const fairLock$ = FAIR_LOCK.lockOf(client);
    if (fairLock$ === undefined) throw new Error('rxlock fair: this build has no fairLock$');
    return Promise.resolve(observableLockWorker(client, fairLock$, key));
  },
};
