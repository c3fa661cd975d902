import { asyncScheduler, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { redisStore, type StoreConnection } from '../src/index.js';
import { handedOver } from '../src/primitives/handedOver.js';
import { defineScript, int, type Script } from '../src/store/Script.js';
import { eventually } from './support/leaks.js';
import { redisServerForSuite } from './support/suiteRedis.js';

const handingOver = defineScript({ name: 'test.handingOver', lua: 'return 3', memory: () => 3, parse: int, handsOver: handedOver });
const plain = defineScript({ name: 'test.plain', lua: 'return 3 -- plain', memory: () => 3, parse: int });
const otherPlain = defineScript({ name: 'test.otherPlain', lua: 'return 3 -- other', memory: () => 3, parse: int });

/**
 * Redis writes a releaser's reply before the hand-off message its script published; a waiter of the same
 * process should take its grant before the releaser's code goes on. The Redis store delivers a reply that
 * says it handed a lock over after the input already read (here: the reply read in the same chunk).
 */
describe('Redis store: a reply that hands a lock over', () => {
  const server = redisServerForSuite();

  /** Sends `first` then `second` in one write, so that Redis answers both in one read of ours; the order their replies reach us. */
  async function deliveryOrder(first: Script<number>, second: Script<number>): Promise<string[]> {
    const redis = server.client();
    const connection: StoreConnection = redisStore(redis).connect(asyncScheduler);
    try {
      // First uses send the script's body; both go the EVALSHA path below.
      for (const script of [first, second]) expect(await firstValueFrom(connection.run(script, ['k'], []))).toBe(3);
      const order: string[] = [];
      const record = (name: string) => ({ next: () => order.push(name), error: (error: unknown) => order.push(`error: ${String(error)}`) });
      redis.stream.cork();
      connection.call?.(first, ['k'], [], record(first.name));
      connection.call?.(second, ['k'], [], record(second.name));
      redis.stream.uncork();
      expect(await eventually(() => Promise.resolve(order.length === 2))).toBe(true);
      return order;
    } finally {
      await connection.close();
      redis.disconnect();
    }
  }

  it('is delivered after a reply read with it, which arrived later', async () => {
    expect(await deliveryOrder(handingOver, plain)).toEqual(['test.plain', 'test.handingOver']);
  });

  it('while replies that hand nothing over keep their order', async () => {
    expect(await deliveryOrder(otherPlain, plain)).toEqual(['test.otherPlain', 'test.plain']);
  });
});
