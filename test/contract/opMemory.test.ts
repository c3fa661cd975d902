import { expect, it } from 'vitest';
import { LockKeyTypeError } from '../../src/index.js';
import { countDownScript, trySetCountScript } from '../../src/primitives/latch/latchScripts.js';
import { latchKeys } from '../../src/primitives/latch/latchKeys.js';
import { addPermitsScript, trySetPermitsScript } from '../../src/primitives/semaphore/adminScripts.js';
import { OP_MEMORY_MS } from '../../src/primitives/semaphore/opMemory.js';
import { semaphoreKeys } from '../../src/primitives/semaphore/semaphoreKeys.js';
import { describeStores, type StoreFixture } from '../support/fixtures.js';

// Each op is run as a client sends it, then again with the same op id: what ioredis does when it re-sends a
// command whose reply a dropped connection lost. Counts are set by hand where the test is not about trySet*.

const pool = semaphoreKeys('pool');
const gate = latchKeys('gate');

function semaphoreOps(f: StoreFixture) {
  const client = f.client();
  return {
    trySetPermits: (permits: number, op: string) => f.run(trySetPermitsScript, [pool.count, pool.channel, pool.ops], [permits, op, 'publish']),
    addPermits: (permits: number, op: string) => f.run(addPermitsScript, [pool.count, pool.channel, pool.ops], [permits, op, 'publish']),
    delete: () => client.semaphore('pool').delete(),
  };
}

function latchOps(f: StoreFixture) {
  const client = f.client();
  return {
    trySetCount: (count: number, op: string) => f.run(trySetCountScript, [gate.count, gate.channel, gate.ops], [count, op, 'publish']),
    countDown: (op: string) => f.run(countDownScript, [gate.count, gate.channel, gate.ops], [op, 'publish']),
    delete: () => client.latch('gate').delete(),
  };
}

describeStores('op memory contract (a re-sent op answers its first reply and changes nothing)', (fixture) => {
  it('semaphore: trySetPermits and addPermits, each outcome', async () => {
    const f = fixture();
    const ops = semaphoreOps(f);
    expect(await ops.trySetPermits(5, 'set-1')).toBe(true);
    expect(await ops.trySetPermits(5, 'set-1')).toBe(true);
    expect(await ops.trySetPermits(7, 'set-2')).toBe(false);
    expect(await ops.trySetPermits(7, 'set-2')).toBe(false);
    expect(await ops.addPermits(3, 'add-1')).toBe(8);
    expect(await ops.addPermits(-2, 'add-2')).toBe(6);
    expect(await ops.addPermits(3, 'add-1')).toBe(8);
    expect(await ops.addPermits(-2, 'add-2')).toBe(6);
    expect(await f.get('pool')).toBe('6');
    expect(await ops.delete()).toBe(true);
  });

  it('semaphore: a copy that comes after delete() re-creates nothing, and delete() leaves the op memory to expire', async () => {
    const f = fixture();
    const ops = semaphoreOps(f);
    expect(await ops.addPermits(2, 'add-1')).toBe(2);
    expect(await ops.delete()).toBe(true);
    expect(await f.keys()).toEqual(['rxlock_ops:{pool}']);
    expect(await f.pttl('rxlock_ops:{pool}')).toBeGreaterThan(OP_MEMORY_MS - 10_000);
    expect(await ops.addPermits(2, 'add-1')).toBe(2);
    expect(await f.get('pool')).toBeNull();
  });

  it('semaphore: a copy of trySetPermits that comes after delete() sets nothing', async () => {
    const f = fixture();
    const ops = semaphoreOps(f);
    expect(await ops.trySetPermits(5, 'set-1')).toBe(true);
    expect(await ops.delete()).toBe(true);
    expect(await ops.trySetPermits(5, 'set-1')).toBe(true);
    expect(await f.get('pool')).toBeNull();
  });

  it('latch: trySetCount and countDown, each outcome', async () => {
    const f = fixture();
    const ops = latchOps(f);
    expect(await ops.trySetCount(2, 'set-1')).toBe(true);
    expect(await ops.trySetCount(2, 'set-1')).toBe(true);
    expect(await ops.trySetCount(4, 'set-2')).toBe(false);
    expect(await ops.trySetCount(4, 'set-2')).toBe(false);
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await f.get('gate')).toBe('1');
    expect(await ops.delete()).toBe(true);
  });

  it('latch: a copy of the countDown that opened it, after a new count was set, counts nothing in the new round', async () => {
    const f = fixture();
    const ops = latchOps(f);
    await f.setString('gate', '2');
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await ops.countDown('down-2')).toBe(0);
    expect(await f.keys()).toEqual(['rxlock_ops:{gate}']);
    await f.setString('gate', '3');
    expect(await ops.countDown('down-2')).toBe(0);
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await f.get('gate')).toBe('3');
    expect(await ops.delete()).toBe(true);
  });

  it('latch: a countDown on no latch is remembered too, so its copy counts nothing once a count is set', async () => {
    const f = fixture();
    const ops = latchOps(f);
    expect(await ops.countDown('down-0')).toBe(0);
    await f.setString('gate', '2');
    expect(await ops.countDown('down-0')).toBe(0);
    expect(await f.get('gate')).toBe('2');
    expect(await ops.delete()).toBe(true);
  });

  it('latch: a copy that comes after delete() and a new count counts nothing, and delete() leaves the op memory to expire', async () => {
    const f = fixture();
    const ops = latchOps(f);
    await f.setString('gate', '2');
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await ops.delete()).toBe(true);
    expect(await f.keys()).toEqual(['rxlock_ops:{gate}']);
    expect(await f.pttl('rxlock_ops:{gate}')).toBeGreaterThan(OP_MEMORY_MS - 10_000);
    await f.setString('gate', '2');
    expect(await ops.countDown('down-1')).toBe(1);
    expect(await f.get('gate')).toBe('2');
    expect(await ops.delete()).toBe(true);
  });

  it('latch: a copy of trySetCount that comes after delete() sets nothing', async () => {
    const f = fixture();
    const ops = latchOps(f);
    expect(await ops.trySetCount(2, 'set-1')).toBe(true);
    expect(await ops.delete()).toBe(true);
    expect(await ops.trySetCount(2, 'set-1')).toBe(true);
    expect(await f.get('gate')).toBeNull();
  });

  it('remembers each op until its expiry (server time + 5 min), and every op first forgets the expired ones', async () => {
    const f = fixture();
    const ops = semaphoreOps(f);
    const now = await f.serverTime();
    // An op whose memory ran out, and one of another client that is still remembered.
    await f.zadd('rxlock_ops:{pool}', now - 1, 'add-old');
    await f.zadd('rxlock_ops:{pool}', now - 1, 'add-old=100');
    await f.zadd('rxlock_ops:{pool}', now + 60_000, 'add-kept');
    await f.zadd('rxlock_ops:{pool}', now + 60_000, 'add-kept=9');
    expect(await ops.addPermits(1, 'add-new')).toBe(1);
    expect(await f.zscore('rxlock_ops:{pool}', 'add-old')).toBeNull();
    expect(await f.zscore('rxlock_ops:{pool}', 'add-old=100')).toBeNull();
    expect(await f.zscore('rxlock_ops:{pool}', 'add-kept=9')).toBe(now + 60_000);
    const expiry = await f.zscore('rxlock_ops:{pool}', 'add-new');
    expect(expiry).toBeGreaterThanOrEqual(now + OP_MEMORY_MS);
    expect(expiry).toBeLessThan(now + OP_MEMORY_MS + 5_000);
    expect(await f.zscore('rxlock_ops:{pool}', 'add-new=1')).toBe(expiry);
    expect(await f.pttl('rxlock_ops:{pool}')).toBeGreaterThan(OP_MEMORY_MS - 5_000);
    // A remembered op answers its reply; one forgotten is an op like any other.
    expect(await ops.addPermits(1, 'add-kept')).toBe(9);
    expect(await ops.addPermits(1, 'add-old')).toBe(2);
    expect(await f.get('pool')).toBe('2');
    expect(await ops.delete()).toBe(true);
  });

  for (const [type, plant] of [
    ['hash', (f: StoreFixture, key: string) => f.setHash(key, 'op-1', '3')],
    ['list', (f: StoreFixture, key: string) => f.setList(key, ['x'])],
  ] as const) {
    it(`refuses an op memory of another type (a ${type}) with LockKeyTypeError naming it, and changes nothing`, async () => {
      const f = fixture();
      const client = f.client();
      await plant(f, 'rxlock_ops:{pool}');
      await plant(f, 'rxlock_ops:{slots}');
      await plant(f, 'rxlock_ops:{gate}');
      const refused = async (op: Promise<unknown>, name: string) => {
        const error = await op.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(LockKeyTypeError);
        expect(error).toMatchObject({ key: `rxlock_ops:{${name}}`, actualType: type });
      };
      for (const permits of [client.semaphore('pool'), client.leasedSemaphore('slots')]) {
        await refused(permits.trySetPermits(2), permits.name);
        await refused(permits.addPermits(2), permits.name);
        expect(await f.get(permits.name)).toBeNull();
      }
      await f.setString('gate', '2');
      const latch = client.latch('gate');
      await refused(latch.trySetCount(2), 'gate');
      await refused(latch.countDown(), 'gate');
      expect(await f.get('gate')).toBe('2');
      expect((await f.keys()).sort()).toEqual(['gate', 'rxlock_ops:{gate}', 'rxlock_ops:{pool}', 'rxlock_ops:{slots}']);
      for (const name of ['pool', 'slots', 'gate']) {
        expect(await f.type(`rxlock_ops:{${name}}`)).toBe(type);
        expect(await f.pttl(`rxlock_ops:{${name}}`)).toBe(-1);
      }
      if (type === 'hash') expect(await f.hgetall('rxlock_ops:{gate}')).toEqual({ 'op-1': '3' });
      else expect(await f.lrange('rxlock_ops:{gate}')).toEqual(['x']);
      await f.flush();
    });
  }
});
