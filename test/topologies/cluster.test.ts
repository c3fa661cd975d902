import type { ClusterOptions } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLockClient, LockLostError, redisStore, type LockClient, type LockClientOptions, type LockEvent, type RedisLike } from '../../src/index.js';
import { lockRenewScript } from '../../src/primitives/lock/renewScript.js';
import { startCluster, type LocalCluster } from '../support/cluster.js';
import { eventually, sleep } from '../support/leaks.js';
import { contend, longestGap, sectionsBetween } from './contention.js';
import { report } from './report.js';
import { CLIENT_LIBRARY } from '../support/clientLibrary.js';

type Settings = Omit<LockClientOptions, 'redis' | 'store'>;

/** Names whose keys live on `port`'s slots: tried in order until `count` are found. */
async function namesOn(cluster: LocalCluster, port: number, prefix: string, count: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; names.length < count; i++) {
    const name = `${prefix}-${i}`;
    if ((await cluster.masterOfKey(name)).port === port) names.push(name);
  }
  return names;
}

/** The publish counters of a node's cluster bus: classic PUBLISH goes to every node, SPUBLISH to the shard's replicas. */
async function busPublishes(cluster: LocalCluster): Promise<{ classic: number; sharded: number }> {
  let classic = 0;
  let sharded = 0;
  for (const node of cluster.nodes.filter((candidate) => candidate.alive)) {
    const info = await cluster.nodeClient(node.port).cluster('INFO');
    classic += Number(/cluster_stats_messages_publish_sent:(\d+)/.exec(info)?.[1] ?? 0);
    sharded += Number(/cluster_stats_messages_publishshard_sent:(\d+)/.exec(info)?.[1] ?? 0);
  }
  return { classic, sharded };
}

/**
 * Proves that `waiter`'s subscription follows the slot of `name` to the master that serves it now: while it
 * waits, its shard channel is subscribed there, and the unlock message (not the 30 s TTL) wakes it.
 */
async function expectWokenByMessage(cluster: LocalCluster, holder: LockClient, waiter: LockClient, name: string, sharded: boolean): Promise<number> {
  const handle = await holder.acquire(name, { waitMs: 10_000 });
  const woken = waiter.withLock(name, () => performance.now(), { waitMs: 10_000 });
  const channel = `redisson_lock__channel:${name.includes('{') ? name : `{${name}}`}`;
  if (sharded) {
    const owner = await cluster.masterOfKey(name);
    expect(await eventually(async () => ((await cluster.nodeClient(owner.port).call('PUBSUB', 'SHARDCHANNELS')) as string[]).includes(channel), 5_000)).toBe(
      true,
    );
  }
  await sleep(100);
  const releasedAt = performance.now();
  await handle.release();
  const wakeMs = (await woken) - releasedAt;
  expect(wakeMs).toBeLessThan(1_000);
  return wakeMs;
}

describe('on a Redis Cluster of 3 masters with a replica each', () => {
  let cluster: LocalCluster;
  let clients: LockClient[] = [];

  /**
   * A lock client on a new cluster connection of the run's library (RXLOCK_CLIENT): an ioredis Cluster with
   * these options, or a node-redis cluster with the same kind of pub/sub.
   */
  const client = (clusterOptions: ClusterOptions, settings: Settings = {}): LockClient => {
    const created =
      CLIENT_LIBRARY === 'node-redis'
        ? createLockClient({ store: redisStore(cluster.nodeRedis(), { shardedPubSub: clusterOptions.shardedSubscribers === true }), ...settings })
        : createLockClient({ redis: cluster.client(clusterOptions), ...settings });
    clients.push(created);
    return created;
  };
  /**
   * A cluster connection of the run's library whose every script is reported to `onScript` (its SHA1 or body,
   * keys and arguments) before it is sent.
   */
  const spiedConnection = (onScript: (shaOrBody: string, keys: readonly string[]) => void): RedisLike => {
    const spy = <T extends object>(target: T, scriptOf: (property: string | symbol, args: unknown[]) => [string, string[]] | undefined): T =>
      new Proxy(target, {
        get(object, property) {
          const value: unknown = Reflect.get(object, property, object);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            const script = scriptOf(property, args);
            if (script !== undefined) onScript(...script);
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        },
      });
    if (CLIENT_LIBRARY === 'node-redis') {
      // A node-redis cluster's sendCommand(firstKey, isReadonly, ['EVALSHA' | 'EVAL', shaOrBody, numkeys, ...keys, ...args]).
      return spy(cluster.nodeRedis(), (property, args) => {
        const command = args[2] as string[] | undefined;
        if (property !== 'sendCommand' || !Array.isArray(command) || !/^EVAL(SHA)?$/i.test(command[0] ?? '')) return undefined;
        return [command[1]!, command.slice(3, 3 + Number(command[2]))];
      });
    }
    // An ioredis Cluster's evalsha(sha1, numkeys, ...keys, ...args) and eval(body, numkeys, ...).
    return spy(cluster.client({ shardedSubscribers: true }), (property, args) => {
      if (property !== 'evalsha' && property !== 'eval') return undefined;
      const [shaOrBody, count, ...rest] = args as [string, number, ...string[]];
      return [shaOrBody, rest.slice(0, count)];
    });
  };

  beforeAll(async () => {
    cluster = await startCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1_000 });
  });
  afterAll(async () => {
    await cluster.stop();
  });
  afterEach(async () => {
    await Promise.all(clients.map((created) => created.close()));
    clients = [];
    await cluster.waitHealthy();
    // A hand-off reservation outlives an unlock by at most handoffMs (100 ms), and the entry of a waiter whose
    // refusal or leave was lost in a failover stays queued until the queue's TTL (lock TTL + 5.2 s); both expire by themselves.
    const clean = await eventually(async () => (await cluster.keys()).length === 0 && (await cluster.channels()).length === 0, 8_000);
    const left = { keys: await cluster.keys(), channels: await cluster.channels() };
    await cluster.flushAll();
    expect(clean ? left : left).toEqual({ keys: [], channels: [] });
  });

  it('wakes a waiter with sharded pub/sub: a shard channel on the slot’s master, one shard’s bus traffic per release', async () => {
    const holder = client({ shardedSubscribers: true });
    const waiter = client({ shardedSubscribers: true });
    const channel = 'redisson_lock__channel:{sharded}';
    const owner = await cluster.masterOfKey('sharded');
    const handle = await holder.acquire('sharded');
    const woken = waiter.withLock('sharded', () => performance.now());
    // Redisson's channel, and the waiting client's hand-off channel: both shard channels on the slot's master.
    const handOff = `${channel}:${waiter.clientId}`;
    const shardChannels = async () => ((await cluster.nodeClient(owner.port).call('PUBSUB', 'SHARDCHANNELS')) as string[]).sort();
    expect(await eventually(async () => (await shardChannels()).length === 2)).toBe(true);
    expect(await shardChannels()).toEqual([channel, handOff].sort());
    expect(await cluster.channels()).toEqual([channel, handOff].sort());
    const before = await busPublishes(cluster);
    const releasedAt = performance.now();
    await handle.release();
    const acquiredAt = await woken;
    await sleep(100);
    const after = await busPublishes(cluster);
    // The holder's TTL is 30 s: only the message can have woken the waiter this fast.
    expect(acquiredAt - releasedAt).toBeLessThan(1_000);
    // Two unlocks were announced: the holder's (the hand-off, on the waiter's channel) and then the waiter's. Each
    // SPUBLISH reached the slot's master and went over the bus to its one replica only; a classic PUBLISH would
    // have gone to all 5 other nodes.
    expect(after.classic - before.classic).toBe(0);
    expect(after.sharded - before.sharded).toBe(2);
    report('cluster', 'sharded wake-up', { wakeMs: Math.round(acquiredAt - releasedAt), busMessagesPerUnlock: (after.sharded - before.sharded) / 2 });
  });

  it('uses classic pub/sub when sharded pub/sub is not asked for (ioredis: a Cluster without shardedSubscribers)', async () => {
    const holder = client({});
    const waiter = client({});
    const handle = await holder.acquire('classic');
    const woken = waiter.withLock('classic', () => performance.now());
    expect(await eventually(async () => (await cluster.channels()).includes('redisson_lock__channel:{classic}'))).toBe(true);
    const before = await busPublishes(cluster);
    const releasedAt = performance.now();
    await handle.release();
    expect((await woken) - releasedAt).toBeLessThan(1_000);
    await sleep(100);
    const after = await busPublishes(cluster);
    // Two unlocks (the holder's, then the waiter's): each classic PUBLISH went over the bus to every other node.
    expect(after.classic - before.classic).toBe(2 * (cluster.nodes.length - 1));
    expect(after.sharded - before.sharded).toBe(0);
    // An ioredis Cluster routes SSUBSCRIBE per shard only when created so; a node-redis cluster always does.
    if (CLIENT_LIBRARY === 'ioredis') expect(() => redisStore(cluster.client({}), { shardedPubSub: true })).toThrow(/shardedSubscribers: true/);
  });

  it('renews 300 holds spread over every master in one script per slot and round, and loses none', async () => {
    // Every renewal script the client sends: its keys (all must share a slot) and how many holds it renews.
    const renewals: { slots: Set<number>; holds: number }[] = [];
    const spied = spiedConnection((shaOrBody, keys) => {
      if (shaOrBody === lockRenewScript.sha1 || shaOrBody === lockRenewScript.lua) {
        renewals.push({ slots: new Set(keys.map((key) => calculateSlot(key))), holds: keys.length / 2 });
      }
    });
    const holder = createLockClient({ redis: spied, watchdogTimeoutMs: 600 });
    clients.push(holder);
    const events: LockEvent[] = [];
    const watched = holder.events$.subscribe((event) => events.push(event));
    const names = Array.from({ length: 300 }, (_, i) => `renew-${i % 3 === 0 ? `{batch}-${i}` : i}`);
    const slots = new Set(names.map((name) => calculateSlot(name)));
    const holds = names.map((name) => holder.lock$(name).subscribe({ error: (error: unknown) => events.push({ type: 'lost', error } as LockEvent) }));
    expect(await eventually(() => events.filter((event) => event.type === 'acquired').length === names.length, 10_000)).toBe(true);
    // Renewal rounds every 200 ms. From now on every round renews all 300, and a round's scripts are all sent in
    // one go, so the scripts sent between two moments make whole rounds.
    const from = renewals.length;
    await sleep(1_100);
    const sent = renewals.slice(from);
    const rounds = sent.reduce((sum, renewal) => sum + renewal.holds, 0) / names.length;
    const failures = events.filter((event) => event.type === 'renew-failed' || event.type === 'lost');
    expect(failures).toEqual([]);
    for (const name of names.slice(0, 5)) expect(await holder.isLocked(name)).toBe(true);
    holds.forEach((hold) => hold.unsubscribe());
    watched.unsubscribe();
    expect(rounds).toBeGreaterThanOrEqual(4);
    // Each script renews holds of one slot only (a cluster would refuse it with CROSSSLOT otherwise)...
    expect(sent.every((renewal) => renewal.slots.size === 1)).toBe(true);
    // ...and the 100 holds that share the `{batch}` slot go in one script per round.
    const batchSlot = calculateSlot('batch');
    expect(sent.filter((renewal) => renewal.slots.has(batchSlot) && renewal.holds === 100).length).toBeGreaterThanOrEqual(Math.floor(rounds));
    report('cluster', 'batched renewal', { holds: names.length, slots: slots.size, holdRenewalsIn1100ms: rounds * names.length, scripts: sent.length });
  });

  for (const sharded of [true, false]) {
    it(`keeps exclusion while a contended slot migrates to another master (${sharded ? 'sharded' : 'classic'} pub/sub)`, async () => {
      const slotName = sharded ? 'reshard-s' : 'reshard-c';
      const names = [0, 1, 2, 3].map((i) => `{${slotName}}:${i}`);
      const slot = calculateSlot(names[0]!);
      const source = await cluster.masterOfSlot(slot);
      const target = (await cluster.masters()).find((node) => node !== source)!;
      const contenders = Array.from({ length: 6 }, () => client({ shardedSubscribers: sharded }));
      const run = contend({ clients: contenders, names, workMs: 3 });
      await sleep(1_000);
      const migrationStart = performance.now();
      await cluster.migrateSlot(slot, target, { pauseMsBetweenSteps: 300 });
      const migrationEnd = performance.now();
      expect((await cluster.masterOfSlot(slot)).port).toBe(target.port);
      await sleep(2_000);
      await run.stop();
      const after = sectionsBetween(run.stats, names, migrationEnd);
      const during = sectionsBetween(run.stats, names, migrationStart, migrationEnd);
      expect(run.stats.overlaps).toBe(0);
      expect(run.stats.lost).toBe(0);
      for (const name of names) expect(after.some((section) => section.name === name)).toBe(true);
      const gap = longestGap(run.stats, names, migrationStart, migrationEnd + 2_000);
      const wakeAfterMigrationMs = await expectWokenByMessage(cluster, contenders[0]!, contenders[1]!, names[0]!, sharded);
      report(`cluster, ${CLIENT_LIBRARY}`, `reshard mid-run (${sharded ? 'sharded' : 'classic'})`, {
        sections: run.stats.sections.length,
        duringMigration: during.length,
        afterMigration: after.length,
        migrationMs: Math.round(migrationEnd - migrationStart),
        longestPauseMs: Math.round(gap),
        wakeAfterMigrationMs: Math.round(wakeAfterMigrationMs),
        overlaps: run.stats.overlaps,
        errors: Object.fromEntries(run.stats.errors),
      });
      // Every waiter followed the slot: no stall anywhere near the 30 s TTL fallback.
      expect(gap).toBeLessThan(3_000);
    });
  }

  for (const replicas of [0, 1]) {
    it(`keeps exclusion when a master fails over, and its holders learn of the loss (replicas: ${replicas})`, async () => {
      // A watchdog TTL shorter than the failover (node timeout 1 s + election): holders on the failed master
      // cannot renew in time, so they report the loss before the promoted replica can expire their keys. The
      // command timeout stays above ioredis' own retries of CLUSTERDOWN/TRYAGAIN (16 × 100 ms), so that no attempt
      // the engine gave up on is still being retried by ioredis after its compensation ran.
      const settings: Settings = { watchdogTimeoutMs: 600, replicas, replicaTimeoutMs: 500, commandTimeoutMs: 2_000 };
      const victim = await cluster.masterOfKey(`failover-${replicas}`);
      const [longHeld, ...onVictim] = await namesOn(cluster, victim.port, `failover-${replicas}`, 3);
      const others: string[] = [];
      for (const node of await cluster.masters()) if (node !== victim) others.push(...(await namesOn(cluster, node.port, `other-${replicas}`, 1)));
      const contenders = (count: number) => Array.from({ length: count }, () => client({ shardedSubscribers: true }, settings));
      const holder = client({ shardedSubscribers: true }, settings);
      let holderError: unknown;
      const holding = holder.lock$(longHeld!).subscribe({ error: (error: unknown) => (holderError = error) });
      const onVictimClients = contenders(4);
      const run = contend({ clients: onVictimClients, names: onVictim, workMs: 5, lockOptions: { waitMs: 3_000 } });
      const elsewhere = contend({ clients: contenders(4), names: others, workMs: 5, lockOptions: { waitMs: 3_000 } });
      await sleep(1_000);
      const killedAt = performance.now();
      await cluster.kill(victim);
      const promoted = async (): Promise<boolean> => (await cluster.masterOfKey(longHeld!).catch(() => victim)).port !== victim.port;
      expect(await eventually(promoted, 15_000, 50)).toBe(true);
      const promotedAt = performance.now();
      // The old master comes back as the new master's replica (with `replicas`, the shard refuses locks until it does).
      await cluster.restart(victim);
      await cluster.waitHealthy();
      const healthyAt = performance.now();
      await sleep(2_000);
      await Promise.all([run.stop(), elsewhere.stop()]);
      holding.unsubscribe();
      // Clients that waited on the failed master through the failover hear unlocks from the promoted one.
      const wakeAfterFailoverMs = await expectWokenByMessage(cluster, onVictimClients[0]!, onVictimClients[1]!, onVictim[0]!, true);
      const resumed = sectionsBetween(run.stats, onVictim, promotedAt)[0]?.start;
      const othersDuringOutage = sectionsBetween(elsewhere.stats, others, killedAt, promotedAt).length;
      report(`cluster, ${CLIENT_LIBRARY}`, `master failover (replicas: ${replicas})`, {
        failoverMs: Math.round(promotedAt - killedAt),
        healthyAfterMs: Math.round(healthyAt - killedAt),
        victimNamesResumedAfterMs: Math.round((resumed ?? NaN) - killedAt),
        otherMastersSectionsDuringOutage: othersDuringOutage,
        wakeAfterFailoverMs: Math.round(wakeAfterFailoverMs),
        lostLeases: run.stats.lost,
        longHolder: holderError instanceof LockLostError ? `LockLostError(${holderError.reason})` : String(holderError),
        overlaps: run.stats.overlaps + elsewhere.stats.overlaps,
        overlapped: [...run.stats.overlapped, ...elsewhere.stats.overlapped].map((o) => ({
          ...o,
          at: Math.round(o.at - killedAt),
          since: Math.round(o.since - killedAt),
        })),
        promotedAfterMs: Math.round(promotedAt - killedAt),
        errors: Object.fromEntries(run.stats.errors),
        samples: Object.fromEntries(run.stats.samples),
      });
      expect(run.stats.overlaps + elsewhere.stats.overlaps).toBe(0);
      expect(holderError).toBeInstanceOf(LockLostError);
      expect(othersDuringOutage).toBeGreaterThan(0);
      expect(resumed).toBeDefined();
    });
  }
});
