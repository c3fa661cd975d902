import { describe, expect, it } from 'vitest';
import { createLockClient, withLease } from '../src/index.js';
import { redisServerForSuite } from './support/suiteRedis.js';

// Redis answers PTTL 0 for a key in its last millisecond (it expires a key once the clock is past its time). A
// fair waiter that reads 0 must try again at once, not at its next refresh, a third of waiterTimeoutMs later.
describe('fairLock$ waiting on a lock in its last millisecond', () => {
  const server = redisServerForSuite();
  it('takes the lock within a few milliseconds of its expiry, every time', async () => {
    const client = createLockClient({ redis: server.client() });
    const admin = server.client();
    const lateBy: number[] = [];
    for (let trial = 0; trial < 40; trial++) {
      const name = `last-ms-${String(trial)}`;
      // Another application's holder (Redisson's layout) that never releases: only the expiry frees the lock.
      await admin.hset(name, 'java-client:1', '1');
      await admin.pexpire(name, 20);
      const expiresAt = Date.now() + 20;
      await withLease(client.fairLock$(name, { waitMs: 2_000 }), () => lateBy.push(Date.now() - expiresAt));
    }
    await client.close();
    // Far under the 3.3 s refresh of the default 10 s waiterTimeoutMs that a missed retry costs.
    expect(Math.max(...lateBy)).toBeLessThan(500);
  });
});
