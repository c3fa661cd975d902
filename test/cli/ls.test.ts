import type { Observable, Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockObject } from '../../src/cli/inspect/LockObject.js';
import { visibleWidth } from '../../src/cli/render/table.js';
import { createLockClient, type LockClient } from '../../src/index.js';
import { eventually } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';
import { prepareEveryPrimitive, REDISSON, type Prepared } from './everyPrimitive.js';

describe('rxlock ls against a redis-server holding one of every primitive', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();
  let prepared: Prepared;
  let url: string;

  beforeAll(async () => {
    url = server.url;
    prepared = await prepareEveryPrimitive(server);
  });
  afterAll(async () => {
    await prepared.close();
  });

  const byName = (objects: LockObject[]) => new Map(objects.map((object) => [object.name, object]));

  it('--json recognises every kind by its layout: holders with hold counts, TTL, waiters', async () => {
    const result = await rxlock(['ls', '--json', '--url', url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const objects = byName(JSON.parse(result.stdout) as LockObject[]);
    expect([...objects.keys()]).toEqual(['batch', 'catalog', 'counter', 'orders:1', 'orders:2', 'payments', 'pool', 'prices', 'refunds', 'reports', 'slots']);
    expect(Object.fromEntries([...objects].map(([name, object]) => [name, object.kind]))).toEqual({
      batch: 'latch',
      catalog: 'readWriteLock',
      counter: 'semaphoreOrLatch',
      'orders:1': 'lock',
      'orders:2': 'lock',
      payments: 'fairLock',
      pool: 'semaphore',
      prices: 'readWriteLock',
      refunds: 'fairLock',
      reports: 'fencingCounter',
      slots: 'leasedSemaphore',
    });

    const orders = objects.get('orders:1');
    expect(orders).toMatchObject({
      kind: 'lock',
      holders: [{ id: 'app-1:worker-1', holds: 1 }],
      fencingToken: 1,
      waiters: { queuedCount: 1, queued: [{ id: 'app-2:worker-2', position: 1 }], subscribedClients: 1 },
    });
    expect(orders?.ttlMs).toBeGreaterThan(15_000);
    expect(orders?.ttlMs).toBeLessThanOrEqual(30_000);
    expect(orders?.waiters.queued[0]?.waitedMs).toBeGreaterThanOrEqual(0);
    expect(objects.get('orders:2')).toMatchObject({ holders: [{ id: 'app-1:job', holds: 2 }], fencingToken: null });

    const catalog = objects.get('catalog');
    expect(catalog).toMatchObject({ kind: 'readWriteLock', mode: 'read' });
    expect(catalog?.holders.map((holder) => [holder.role, holder.id, holder.holds])).toEqual([
      ['reader', 'app-1:reader-1', 1],
      ['reader', 'app-1:reader-2', 1],
    ]);
    for (const reader of catalog?.holders ?? []) expect(reader.ttlMs).toBeGreaterThan(15_000);
    expect(objects.get('prices')).toMatchObject({ mode: 'write', holders: [{ id: 'app-1:writer-1', holds: 1, role: 'writer' }] });

    expect(objects.get('pool')).toMatchObject({ kind: 'semaphore', permits: 1, ttlMs: null, holders: [{ holds: 2 }] });
    expect(objects.get('pool')?.holders[0]?.id).toMatch(/^app-1:/);
    const slots = objects.get('slots');
    expect(slots).toMatchObject({ kind: 'leasedSemaphore', permits: 1, holders: [{ id: prepared.permitIds[0], holds: 1 }] });
    expect(slots?.holders[0]?.ttlMs).toBeGreaterThan(500_000);

    const payments = objects.get('payments');
    expect(payments).toMatchObject({ kind: 'fairLock', holders: [{ id: 'app-1:payer-1', holds: 1 }], waiters: { queuedCount: 2 } });
    expect(payments?.waiters.queued.map((waiter) => [waiter.position, waiter.id])).toEqual([
      [1, 'app-2:payer-2'],
      [2, 'app-2:payer-3'],
    ]);
    const refunds = objects.get('refunds');
    expect(refunds).toMatchObject({ kind: 'fairLock', holders: [{ id: `${REDISSON}:1`, holds: 1 }], waiters: { queuedCount: 2 } });
    expect(refunds?.waiters.queued.map((waiter) => waiter.id)).toEqual([`${REDISSON}:2`, `${REDISSON}:3`]);
    const [first, second] = refunds?.waiters.queued ?? [];
    expect(first?.timeoutMs).toBeGreaterThan(30_000);
    expect(second?.timeoutMs).toBeGreaterThan(first?.timeoutMs ?? Infinity);

    expect(objects.get('batch')).toMatchObject({ kind: 'latch', count: 3, waiters: { subscribedClients: 1 } });
    expect(objects.get('reports')).toMatchObject({ kind: 'fencingCounter', token: 7, holders: [] });
    expect(objects.get('counter')).toMatchObject({ kind: 'semaphoreOrLatch', value: 5 });
  });

  it('prints a table by default, one block per object', async () => {
    const result = await rxlock(['ls', '--url', url]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual(['NAME', 'KIND', 'STATE', 'HOLDERS', 'TTL', 'WAITERS']);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? '';
    expect(row('orders:1')).toMatch(/^orders:1\s+lock\s+held\s+app-1:worker-1 ×1\s+\d+\.\ds\s+1 queued$/);
    expect(lines[lines.indexOf(row('orders:1')) + 1]).toMatch(/^\s+last token 1\s+1\. app-2:worker-2 waiting \d/);
    // Held and nobody waiting: a lock and a fair lock with an empty queue look the same, and the table says so.
    expect(row('orders:2')).toMatch(/^orders:2\s+lock\*\s+held\s+app-1:job ×2/);
    expect(lines.at(-1)).toBe('* a lock, or a fair lock with nobody queued: Redis stores both alike');
    expect(row('catalog')).toMatch(/readWriteLock\s+read-locked\s+R app-1:reader-1 ×1/);
    expect(row('prices')).toMatch(/readWriteLock\s+write-locked\s+W app-1:writer-1 ×1/);
    expect(row('pool')).toMatch(/semaphore\s+1 permit free\s+app-1:\S+ ×2\s+∞/);
    // A permit id (32 hex digits) is shortened to a prefix; --json has it whole.
    expect(row('slots')).toMatch(new RegExp(`leasedSemaphore\\s+1 permit free\\s+${prepared.permitIds[0]?.slice(0, 8) ?? ''}… \\d`));
    expect(row('payments')).toMatch(/fairLock\s+held\s+app-1:payer-1 ×1\s+\d+\.\ds\s+2 queued$/);
    expect(lines[lines.indexOf(row('payments')) + 1]).toMatch(/^\s+1\. app-2:payer-2 drops in at most \d/);
    expect(row('refunds')).toMatch(/fairLock\s+held\s+c0ffee00…:1 ×1\s+\d+\.\ds\s+2 queued/);
    expect(row('batch')).toMatch(/latch\s+count 3\s+–\s+∞\s+1 client subscribed/);
    expect(row('reports')).toMatch(/fencingCounter\s+not held/);
    expect(row('counter')).toMatch(/semaphoreOrLatch\s+value 5/);
    expect(result.stdout).not.toMatch(/user:1|jobs/);
    // eslint-disable-next-line no-control-regex
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });

  it('filters by glob pattern and by --kind, and --kind settles what an integer string is', async () => {
    const [orders, locks, latches] = await Promise.all([
      rxlock(['ls', 'orders:*', '--json', '--url', url]),
      rxlock(['ls', '--kind', 'lock,fairLock', '--json', '--url', url]),
      rxlock(['ls', '--kind', 'latch', '--json', '--url', url]),
    ]);
    expect((JSON.parse(orders.stdout) as LockObject[]).map((object) => object.name)).toEqual(['orders:1', 'orders:2']);
    expect((JSON.parse(locks.stdout) as LockObject[]).map((object) => `${object.name}=${object.kind}`)).toEqual([
      'orders:1=lock',
      'orders:2=lock',
      'payments=fairLock',
      'refunds=fairLock',
    ]);
    // pool is a semaphore by its layout (rxlock's holds) whatever --kind says; counter had nothing to tell.
    expect((JSON.parse(latches.stdout) as LockObject[]).map((object) => `${object.name}=${object.kind}`)).toEqual(['batch=latch', 'counter=latch']);
  });

  it('looks a plain name up directly, and says when there is no such lock or the key holds something else', async () => {
    const [one, missing, hash, list] = await Promise.all([
      rxlock(['ls', 'orders:2', '--json', '--url', url]),
      rxlock(['ls', 'nope', '--url', url]),
      rxlock(['ls', 'user:1', '--url', url]),
      rxlock(['ls', 'jobs', '--json', '--url', url]),
    ]);
    expect((JSON.parse(one.stdout) as LockObject[]).map((object) => object.name)).toEqual(['orders:2']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^rxlock: no such lock: "nope"/);
    expect(missing.stderr).toContain(`127.0.0.1:${server.port}`);

    expect(hash.code).toBe(1);
    expect(hash.stderr).toMatch(/^rxlock: wrong type at "user:1": the key holds a hash/);
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/wrong type at "jobs": the key holds a list/);
    expect(list.stdout).toBe('');
  });

  it('says so when a pattern matches nothing, with exit code 0', async () => {
    const [table, json] = await Promise.all([rxlock(['ls', 'zzz*', '--url', url]), rxlock(['ls', 'zzz*', '--json', '--url', url])]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toBe(`no lock-family objects match "zzz*" on redis://127.0.0.1:${server.port}\n`);
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
  });
});

describe('rxlock ls with clients that kept their default (random) client ids', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();
  const subscriptions: Subscription[] = [];
  let clients: LockClient[] = [];

  afterAll(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await Promise.all(clients.map((client) => client.close()));
  });

  it('shortens UUIDs to a unique prefix, marks a held lock nobody waits for, and shows the fencing counter as the last token drawn', async () => {
    const [first, second] = (clients = [createLockClient({ redis: server.client() }), createLockClient({ redis: server.client() })]);
    if (first === undefined || second === undefined) throw new Error('two clients');
    const held = (lease$: Observable<unknown>) =>
      new Promise<void>((resolve) => subscriptions.push(lease$.subscribe({ next: () => resolve(), error: () => undefined })));
    await held(first.lock$('orders', { fencing: true }));
    subscriptions.push(second.lock$('orders').subscribe({ error: () => undefined }));
    await held(first.fairLock$('jobs'));
    await server.client().set('redisson_lock_token:{audit}', '3');
    await held(second.lock$('audit'));
    await eventually(async () => (await server.client().zcard('rxlock_waiters:{orders}')) === 1);

    const [table, json] = await Promise.all([rxlock(['ls', '--url', server.url]), rxlock(['ls', '--json', '--url', server.url])]);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const lines = table.stdout.trimEnd().split('\n');
    const short = (client: LockClient) => `${client.clientId.slice(0, 8)}…`;
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? '';
    expect(row('orders')).toMatch(new RegExp(`^orders\\s+lock\\s+held\\s+${short(first)}:#1 ×1\\s`));
    expect(lines[lines.indexOf(row('orders')) + 1]).toMatch(new RegExp(`last token 1\\s+1\\. ${short(second)}:#1 waiting`));
    // A fair lock whose queue is empty is the same hash as a lock: the table cannot say which, and says so.
    expect(row('jobs')).toMatch(new RegExp(`^jobs\\s+lock\\*\\s+held\\s+${short(first)}:#2 ×1`));
    expect(lines.at(-1)).toMatch(/^\* a lock, or a fair lock with nobody queued: Redis stores both alike$/);
    // audit's holder did not ask for fencing: the counter is the name's, shown as such.
    expect(lines[lines.indexOf(row('audit')) + 1]).toMatch(/^\s+last token 3$/);
    // Whole UUIDs made such a table about 130 columns wide.
    expect(Math.max(...lines.map(visibleWidth))).toBeLessThanOrEqual(90);
    expect(table.stdout).not.toContain(first.clientId);

    const objects = JSON.parse(json.stdout) as LockObject[];
    expect(objects.find((object) => object.name === 'orders')?.holders[0]?.id).toBe(`${first.clientId}:#1`);
  });
});
