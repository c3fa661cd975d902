import type { ClientCore } from '../../engine/ClientCore.js';
import { latch, type CountDownLatch } from './latch.js';

/** The countdown latch (`latch(name)`) part of the client. */
export interface LatchMethods {
  /**
   * A countdown latch with Redisson's RCountDownLatch layout: `await$`, `trySetCount`, `countDown`, `getCount`, `delete`.
   *
   * @example
   * const shards = client.latch('reindex:shards');
   * await shards.trySetCount(3);
   * // Each of three workers, when its shard is done: await client.latch('reindex:shards').countDown();
   * await firstValueFrom(shards.await$({ waitMs: 600_000 }));
   */
  latch(name: string): CountDownLatch;
}

export function latchMethods(core: ClientCore): LatchMethods {
  return {
    latch: (name) => latch(core, name),
  };
}
