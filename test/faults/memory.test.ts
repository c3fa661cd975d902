import type { Redis } from 'ioredis';
import { firstValueFrom, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, LockLostError, type Lease, type LockClient, type LockEvent } from '../../src/index.js';
import { lockAcquireScript } from '../../src/primitives/lock/acquireScript.js';
import { lockForceUnlockScript, lockInspectScript } from '../../src/primitives/lock/adminScripts.js';
import { lockReleaseScript } from '../../src/primitives/lock/releaseScript.js';
import { lockRenewScript } from '../../src/primitives/lock/renewScript.js';
import { now } from '../support/checker.js';
import { lockConnection } from '../support/clientLibrary.js';
import { eventually, sleep } from '../support/leaks.js';
import { figure, useRig } from './rig.js';

const TTL = 600;
const RENEW_PERIOD = TTL / 3;
const FILLER = 'x'.repeat(64 * 1024);

/**
 * Fills the server with keys that have no TTL, then sets `maxmemory` below what it uses: from then on it is
 * out of memory, and every write that needs memory either evicts (when the policy allows) or is refused.
 */
async function fillMemory(admin: Redis): Promise<number> {
  const fillers = 32;
  for (let i = 0; i < fillers; i++) await admin.set(`filler:${i}`, FILLER);
  const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
  await admin.config('SET', 'maxmemory', String(used - 256 * 1024));
  return fillers;
}

async function freeMemory(admin: Redis): Promise<void> {
  await admin.flushall();
  await admin.config('SET', 'maxmemory', '0');
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
}

function record(client: LockClient): { events: LockEvent[]; subscription: Subscription } {
  const events: LockEvent[] = [];
  return { events, subscription: client.events$.subscribe((event) => events.push(event)) };
}

describe('fault 8: memory pressure', () => {
  const rig = useRig();

  it('warns on events$ at start when the eviction policy can evict lock keys, and stays quiet under noeviction', async () => {
    const { admin, locks } = rig();
    for (const policy of ['allkeys-lru', 'volatile-ttl', 'noeviction']) {
      await admin.config('SET', 'maxmemory-policy', policy);
      const client = createLockClient({ redis: lockConnection(locks.port) });
      // The policy is read first on the client's connection: once a later command answered, the warning was decided.
      await client.isLocked('anything');
      const { events, subscription } = record(client);
      const warnings = events.filter((event) => event.type === 'warning');
      if (policy === 'noeviction') {
        expect(warnings).toEqual([]);
      } else {
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ code: 'eviction-policy' });
        expect((warnings[0] as LockEvent & { type: 'warning' }).message).toContain(policy);
        figure('memory', `maxmemory-policy ${policy}: events$ warning "${(warnings[0] as LockEvent & { type: 'warning' }).message}"`);
      }
      subscription.unsubscribe();
      await client.close();
    }
  });

  it('an evicted lock key: the holder learns at its next renewal', async () => {
    const { admin, locks } = rig();
    await admin.config('SET', 'maxmemory-policy', 'volatile-ttl');
    const client = createLockClient({ redis: lockConnection(locks.port), clientId: 'evicted', watchdogTimeoutMs: TTL });
    let lease: Lease | undefined;
    let lost: { error: unknown; at: number } | undefined;
    const subscription = client.lock$('evict-me').subscribe({ next: (value) => (lease = value), error: (error: unknown) => (lost = { error, at: now() }) });
    expect(await eventually(() => lease !== undefined)).toBe(true);
    await fillMemory(admin);
    // volatile-ttl evicts keys with a TTL first, shortest first: the lock key is the only one. The write that
    // needed the memory is refused all the same, as evicting the small lock key did not free enough.
    await expect(admin.set('one-more', FILLER)).rejects.toThrow(/^OOM/);
    const evictedAt = now();
    expect(await admin.exists('evict-me')).toBe(0);
    expect(Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))?.[1])).toBeGreaterThan(0);
    expect(await eventually(() => lost !== undefined, 2 * TTL)).toBe(true);
    expect(lost!.error).toBeInstanceOf(LockLostError);
    expect((lost!.error as LockLostError).reason).toBe('not-held');
    // The next renewal, plus its round trip and a timer late on a busy machine.
    expect(lost!.at - evictedAt).toBeLessThan(RENEW_PERIOD + 150);
    subscription.unsubscribe();
    await client.close();
    await freeMemory(admin);
    figure(
      'memory',
      `volatile-ttl evicted a held lock key; the holder's LockLostError(not-held) came ${(lost!.at - evictedAt).toFixed(1)} ms later (renewal period ${RENEW_PERIOD} ms)`,
    );
  });

  it('noeviction with a full memory: acquires fail with LockBackendError("oom") and write nothing; renewals and releases still work', async () => {
    const { admin, locks } = rig();
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const client = createLockClient({ redis: lockConnection(locks.port), clientId: 'oom', watchdogTimeoutMs: TTL });
    const first = await client.acquire('survivor', { owner: 'job' });
    const second = await client.acquire('survivor', { owner: 'job' });
    let lost: unknown;
    const other = client.lock$('other').subscribe({ error: (error: unknown) => (lost = error) });
    expect(await eventually(async () => (await admin.exists('other')) === 1)).toBe(true);
    const fillers = await fillMemory(admin);
    const keysBefore = await admin.dbsize();

    const error = await firstValueFrom(client.lock$('new-lock')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockBackendError);
    expect(error).toMatchObject({ code: 'oom' });
    expect((error as Error).message).toContain('"new-lock"');
    const fenced = await client.acquire('new-fenced', { fencing: true }).catch((e: unknown) => e);
    expect(fenced).toMatchObject({ code: 'oom' });
    expect(await admin.dbsize()).toBe(keysBefore);

    // Renewals keep both leases alive for several TTLs while the server is still out of memory.
    const { events, subscription } = record(client);
    await sleep(3 * TTL);
    expect(events.filter((event) => event.type === 'renewed').length).toBeGreaterThanOrEqual(10);
    expect(events.filter((event) => event.type === 'lost' || event.type === 'renew-failed')).toEqual([]);
    expect(first.held && second.held).toBe(true);
    expect(lost).toBeUndefined();

    // A partial release (hold count 2 to 1), the last release and an unsubscription all go through.
    await second.release();
    expect(await admin.hget('survivor', 'oom:job')).toBe('1');
    await first.release();
    other.unsubscribe();
    expect(await eventually(async () => (await admin.exists('survivor', 'other')) === 0)).toBe(true);
    expect(events.filter((event) => event.type === 'release-failed')).toEqual([]);
    await expect(admin.set('one-more', FILLER)).rejects.toThrow(/^OOM/);

    // Why the scripts carry no shebang: a script that declares flags without allow-oom is refused even when it only deletes.
    await expect(admin.eval("#!lua\nreturn redis.call('del', KEYS[1])", 1, 'filler:0')).rejects.toThrow(/OOM/);
    expect(await admin.eval("return redis.call('del', KEYS[1])", 1, 'filler:0')).toBe(1);
    for (const script of [lockAcquireScript, lockReleaseScript, lockRenewScript, lockInspectScript, lockForceUnlockScript])
      expect(script.lua.startsWith('#!')).toBe(false);

    subscription.unsubscribe();
    await client.close();
    await freeMemory(admin);
    figure(
      'memory',
      `noeviction, memory full (${fillers} fillers of 64 KiB): acquire → LockBackendError(oom), nothing written; ${events.filter((event) => event.type === 'renewed').length} renewals in ${3 * TTL} ms, partial and final releases all succeeded; a "#!lua" DEL was refused with OOM`,
    );
  });
});
