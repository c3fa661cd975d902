import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, type Lease, type RedisLike } from '../src/index.js';
import { lockAcquireScript } from '../src/primitives/lock/acquireScript.js';
import { lockReleaseScript } from '../src/primitives/lock/releaseScript.js';
import { eventually } from './support/leaks.js';
import { startProxy } from './support/proxy.js';
import { SERVER_KIND, startRedis, type RedisServer } from './support/redisServer.js';

/** Calls of `command` the server counted (INFO commandstats). */
async function calls(server: RedisServer, command: string): Promise<number> {
  const stats = await server.client().info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

/**
 * `replicas` as Redisson's `checkLockSyncedSlaves`: WAITAOF (the master and the replica fsynced their AOF) where
 * the server has AOF on and knows WAITAOF (Valkey 8, Redis 7.2+), WAIT otherwise (Redis 7.0, or AOF off). With
 * no replica acknowledging, the acquisition fails with no-replicas and leaves nothing behind.
 */
for (const aof of [true, false]) {
  describe(`replicas: 1 on ${SERVER_KIND} with AOF ${aof ? 'on' : 'off'}`, () => {
    let master: RedisServer;
    let replica: RedisServer;
    // fsync on every write: with everysec a WAITAOF waits up to a second for the next fsync (see the docs on replicaTimeoutMs).
    const persistence = aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : [];
    beforeAll(async () => {
      master = await startRedis(persistence);
      replica = await startRedis([...persistence, '--replicaof', '127.0.0.1', String(master.port)]);
      const synced = await eventually(async () => (await replica.client().info('replication')).includes('master_link_status:up'), 10_000);
      if (!synced) throw new Error('the replica did not sync');
      // With AOF on, a replica reports fsynced offsets only once its own AOF is open after the sync.
      const admin = master.client();
      const fsynced = async (): Promise<boolean> => {
        if (!aof || !(await serverHasWaitaof())) return true;
        await admin.set('aof-probe', '1');
        const [, replicas] = (await admin.call('WAITAOF', '0', '1', '200')) as [number, number];
        await admin.del('aof-probe');
        return replicas >= 1;
      };
      if (!(await eventually(fsynced, 10_000, 100))) throw new Error("the replica's AOF did not start");
    });
    afterAll(async () => {
      replica.signal('SIGCONT');
      await Promise.all([replica.stop(), master.stop()]);
    });

    const serverHasWaitaof = async (): Promise<boolean> => {
      const info = await master.client().info('server');
      return /^valkey_version:/m.test(info) || !/^redis_version:7\.[01]\./m.test(info);
    };

    for (const library of ['ioredis', 'node-redis'] as const) {
      it(`${library}: waits with ${aof ? 'WAITAOF where the server has it, WAIT otherwise' : 'WAIT'}, and fails with no-replicas when none acknowledges`, async () => {
        const redis: RedisLike = library === 'node-redis' ? master.nodeRedis() : master.client();
        // A generous timeout where the replica answers (an fsync on a busy disk can take a while), a short one where it cannot.
        const synced = createLockClient({ redis, replicas: 1, replicaTimeoutMs: 5_000 });
        const client = createLockClient({ redis, replicas: 1, replicaTimeoutMs: 300 });
        const [waitsBefore, waitaofsBefore] = [await calls(master, 'wait'), await calls(master, 'waitaof')];
        expect(await synced.withLock(`synced-${library}`, () => 'ran')).toBe('ran');
        await synced.close();
        const usesWaitaof = aof && (await serverHasWaitaof());
        const [waits, waitaofs] = [(await calls(master, 'wait')) - waitsBefore, (await calls(master, 'waitaof')) - waitaofsBefore];
        // One for the acquire, one for the release.
        expect(usesWaitaof ? waitaofs : waits).toBeGreaterThanOrEqual(2);
        expect(usesWaitaof ? waits : waitaofs).toBe(0);

        replica.signal('SIGSTOP');
        try {
          const error = await client.withLock(`unsynced-${library}`, () => 'ran').catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(LockBackendError);
          expect((error as LockBackendError).code).toBe('no-replicas');
          expect((error as Error).message).toMatch(usesWaitaof ? /no replica fsynced the writes of .* with WAITAOF/ : /no replica acknowledged .* with WAIT/);
        } finally {
          replica.signal('SIGCONT');
        }
        await client.close();
        // The acquire nobody acknowledged was released again: nothing is left but the fencing counters.
        expect(await eventually(async () => (await master.client().keys('*')).length === 0, 3_000)).toBe(true);
      });
    }
  });
}

/**
 * A script and its WAIT go out together; when the connection drops with them in flight, both are sent again
 * after the reconnect (ioredis does this itself, rxlock does it on node-redis): the acquire holds with no failed
 * attempt reported, and the release unlocks at once.
 */
describe(`replicas: 1 on ${SERVER_KIND}, the connection dropped with a script and its WAIT in flight`, () => {
  let master: RedisServer;
  let replica: RedisServer;
  // One admin connection to each (the servers close them when they stop).
  let masterAdmin: Redis;
  let replicaAdmin: Redis;
  beforeAll(async () => {
    master = await startRedis();
    replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
    [masterAdmin, replicaAdmin] = [master.client(), replica.client()];
    const synced = await eventually(async () => (await replicaAdmin.info('replication')).includes('master_link_status:up'), 10_000);
    if (!synced) throw new Error('the replica did not sync');
  });
  afterAll(async () => {
    await Promise.all([replica.stop(), master.stop()]);
  });

  for (const library of ['ioredis', 'node-redis'] as const) {
    it(`${library}: the acquire whose reply was lost holds, and the release whose reply was lost unlocks at once`, async () => {
      const proxy = await startProxy(master.port);
      const redis: RedisLike =
        library === 'node-redis'
          ? master.nodeRedis({ socket: { port: proxy.port, reconnectStrategy: () => 20 } })
          : master.client({ port: proxy.port, retryStrategy: () => 20 });
      const client = createLockClient({ redis, clientId: 'dropped', replicas: 1, replicaTimeoutMs: 5_000 });
      const failures: string[] = [];
      client.events$.subscribe((event) => {
        if (event.type === 'lost' || event.type === 'release-failed' || event.type === 'renew-failed' || event.type === 'attempt-failed')
          failures.push(event.type);
      });
      const name = `dropped-${library}`;
      try {
        // The scripts are loaded, so the dropped requests are the EVALSHAs the proxy looks for.
        await client.withLock(name, () => undefined);

        const acquireDropped = proxy.dropRepliesTo((request) => request.includes(lockAcquireScript.sha1));
        let lease: Lease | undefined;
        const subscription = client.lock$(name).subscribe({ next: (value) => (lease = value), error: (error: unknown) => failures.push(String(error)) });
        expect(await eventually(() => lease !== undefined, 5_000)).toBe(true);
        expect(await acquireDropped).toBe(1);
        expect(await masterAdmin.hgetall(name)).toEqual({ [`dropped:${lease!.owner}`]: '1' });

        const releaseDropped = proxy.dropRepliesTo((request) => request.includes(lockReleaseScript.sha1));
        subscription.unsubscribe();
        expect(await releaseDropped).toBe(1);
        // Unlocked well before the 30 s lease would have run out, on the master and on its replica.
        expect(await eventually(async () => (await masterAdmin.exists(name)) === 0, 3_000)).toBe(true);
        expect(await eventually(async () => (await replicaAdmin.exists(name)) === 0, 3_000)).toBe(true);
        expect(failures).toEqual([]);
      } finally {
        await client.close();
        await proxy.close();
      }
    });
  }
});
