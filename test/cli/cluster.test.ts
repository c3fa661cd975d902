import calculateSlot from 'cluster-key-slot';
import { firstValueFrom, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LockObject } from '../../src/cli/inspect/LockObject.js';
import { createLockClient, type LockClient } from '../../src/index.js';
import { startCluster, type LocalCluster } from '../support/cluster.js';
import { eventually, sleep } from '../support/leaks.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';

describe('rxlock --cluster', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let cluster: LocalCluster;
  let seeds: string;
  let clients: LockClient[] = [];
  const holds: Subscription[] = [];
  const names = ['orders:1', 'orders:2', 'orders:3', 'orders:4', 'zeta', '{tenant}:jobs'];

  beforeAll(async () => {
    cluster = await startCluster({ masters: 3, replicasPerMaster: 0 });
    seeds = cluster.startupNodes.map(({ host, port }) => `${host}:${port}`).join(',');
  });
  afterAll(async () => {
    for (const hold of holds) hold.unsubscribe();
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
    await cluster.stop();
  });

  it('lists the locks of every master, and unlock --force wakes a waiter', async () => {
    const [holder, waiter, sharded] = [
      createLockClient({ redis: cluster.client(), clientId: 'holder' }),
      createLockClient({ redis: cluster.client(), clientId: 'waiter' }),
      createLockClient({ redis: cluster.client({ shardedSubscribers: true }), clientId: 'sharded' }),
    ];
    clients = [holder, waiter, sharded];
    const masters = new Set(await Promise.all(names.map(async (name) => (await cluster.masterOfSlot(calculateSlot(name))).port)));
    expect(masters.size).toBeGreaterThan(1);
    for (const name of names) holds.push(holder.lock$(name, { owner: 'w' }).subscribe({ error: () => undefined }));
    await eventually(async () => (await cluster.keys()).filter((key) => names.includes(key)).length === names.length);

    const listing = await rxlock(['ls', '--json', '--cluster', seeds]);
    expect(listing.stderr).toBe('');
    expect((JSON.parse(listing.stdout) as LockObject[]).map((object) => `${object.name} ${object.holders[0]?.id ?? ''}`)).toEqual(
      [...names].sort().map((name) => `${name} holder:w`),
    );

    const classic = firstValueFrom(waiter.lock$('orders:2', { owner: 'next' }));
    await sleep(300);
    const unlocked = await rxlock(['unlock', '--force', 'orders:2', '--yes', '--cluster', seeds]);
    expect(unlocked).toMatchObject({ code: 0, stdout: 'unlocked "orders:2" (was held by holder:w ×1)\n' });
    expect(await Promise.race([classic.then(() => true), sleep(10_000).then(() => false)])).toBe(true);

    const shardedWaiter = firstValueFrom(sharded.lock$('zeta', { owner: 'next' }));
    await sleep(300);
    const viaShards = await rxlock(['unlock', '--force', 'zeta', '--yes', '--sharded-pubsub', '--cluster', seeds]);
    expect(viaShards).toMatchObject({ code: 0, stdout: 'unlocked "zeta" (was held by holder:w ×1)\n' });
    expect(await Promise.race([shardedWaiter.then(() => true), sleep(10_000).then(() => false)])).toBe(true);
  });
});
