import { filter, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient } from '../src/index.js';
import { redisServerForSuite } from './support/suiteRedis.js';

// A common production setting: connect explicitly, and fail a command at once instead of queueing it while
// the connection is down. rxlock's pub/sub connection is a duplicate of the client, with these settings too.
const FAIL_FAST = { lazyConnect: true, enableOfflineQueue: false } as const;

describe('a client created with lazyConnect and enableOfflineQueue: false', () => {
  const server = redisServerForSuite();

  it('wakes its waiters by pub/sub: a waiter gets the lock as soon as the holder releases it', async () => {
    const connections = [server.client(FAIL_FAST), server.client(FAIL_FAST)];
    await Promise.all(connections.map((redis) => redis.connect()));
    const [holder, waiter] = connections.map((redis) => createLockClient({ redis }));
    const held = await holder!.acquire('fail-fast');
    // Without its subscription the waiter would be woken only by its TTL fallback (the 30 s watchdog lease)
    // or by a resent subscription (after 2 s): both later than its 1.5 s.
    const queued = firstValueFrom(waiter!.events$.pipe(filter((event) => event.type === 'waiting')));
    const waited = waiter!.acquire('fail-fast', { waitMs: 1_500 });
    await queued;
    setTimeout(() => void held.release(), 100);
    const handle = await waited;
    expect(handle.held).toBe(true);
    await handle.release();
    expect(await server.client().exists('fail-fast')).toBe(0);
    await Promise.all([holder!.close(), waiter!.close()]);
  });
});
