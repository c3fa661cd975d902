import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, LockTimeoutError, type LockClient, type LockEvent } from '../src/index.js';
import { freePort } from '../src/demo/localRedis.js';
import { startProxy } from './support/proxy.js';
import { redisServerForSuite } from './support/suiteRedis.js';

const COMMAND_TIMEOUT_MS = 500;

/** What a promise settled with, and when (ms after `from`). */
async function settle<T>(promise: Promise<T>, from = performance.now()): Promise<{ error?: unknown; value?: T; ms: number }> {
  try {
    const value = await promise;
    return { value, ms: performance.now() - from };
  } catch (error) {
    return { error, ms: performance.now() - from };
  }
}

describe('Redis unreachable is reported, and close() keeps its bound (issue 41, items 4 and 5)', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function unreachableClient(): Promise<{ client: LockClient; events: LockEvent[] }> {
    // Nothing listens at this port: every command waits in ioredis's offline queue while it reconnects.
    const redis = new Redis({ port: await freePort(), host: '127.0.0.1', retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    const client = createLockClient({ redis, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const events: LockEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    cleanups.push(
      () => redis.disconnect(),
      () => client.close(),
    );
    return { client, events };
  }

  it('without waitMs: withLock fails with LockBackendError("unavailable") carrying the client’s error, after about commandTimeoutMs', async () => {
    const { client, events } = await unreachableClient();
    const { error, ms } = await settle(client.withLock('x', () => 'never'));
    expect(error).toBeInstanceOf(LockBackendError);
    expect((error as LockBackendError).code).toBe('unavailable');
    expect((error as Error).cause).toBeInstanceOf(Error);
    // Between one and two command timeouts (the sweep is every quarter of it), plus the back-off.
    // Node's timers count the loop's whole milliseconds, so performance.now() may read up to 1 ms short.
    expect(ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 1);
    expect(ms).toBeLessThan(4 * COMMAND_TIMEOUT_MS);
    // events$ said so as it happened.
    expect(events.some((event) => event.type === 'attempt-failed')).toBe(true);
    console.info(`unreachable Redis: withLock failed with LockBackendError after ${ms.toFixed(0)} ms (commandTimeoutMs ${COMMAND_TIMEOUT_MS})`);
  });

  it('with waitMs: LockTimeoutError says the attempts failed, with the backend error as cause', async () => {
    const { client } = await unreachableClient();
    const { error } = await settle(client.withLock('x', () => 'never', { waitMs: 2 * COMMAND_TIMEOUT_MS }));
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).cause).toBeInstanceOf(LockBackendError);
    expect((error as Error).message).toContain('attempts failed');
  });

  it('close() resolves within 100 ms when nothing is held, Redis unreachable', async () => {
    const { client } = await unreachableClient();
    const pending = settle(client.withLock('x', () => 'never'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { ms } = await settle(client.close());
    expect(ms).toBeLessThan(150);
    await pending;
  });
});

describe('close() behind a partition keeps its bound: the longest remaining lease plus 1.25 × commandTimeoutMs', () => {
  const server = redisServerForSuite();

  it('resolves within the bound while its releases go unanswered', async () => {
    const proxy = await startProxy(server.port);
    const redis = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 10, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const watchdogTimeoutMs = 1_000;
    const client = createLockClient({ redis, commandTimeoutMs: COMMAND_TIMEOUT_MS, watchdogTimeoutMs });
    try {
      const held = await Promise.all([client.acquire('a'), client.acquire('b'), client.acquire('c', { leaseMs: 800 })]);
      const latestDeadline = Math.max(...held.map((lease) => lease.deadline));
      proxy.setMode({ type: 'blackhole' });
      const startedAt = performance.timeOrigin + performance.now();
      const { ms } = await settle(client.close());
      const bound = Math.max(0, latestDeadline - startedAt) + 1.25 * COMMAND_TIMEOUT_MS;
      expect(ms).toBeLessThanOrEqual(bound + 100);
      console.info(`close() behind a partition: ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
    } finally {
      proxy.setMode({ type: 'pass' });
      redis.disconnect();
      await proxy.close();
    }
  });
});
