import type { ClientCore } from '../../engine/ClientCore.js';
import { latch, type CountDownLatch } from './latch.js';

/** The countdown latch (`latch(name)`) part of the client. */
export interface LatchMethods {
  /** A countdown latch with Redisson's RCountDownLatch layout: `await$`, `trySetCount`, `countDown`, `getCount`, `delete`. */
  latch(name: string): CountDownLatch;
}

export function latchMethods(core: ClientCore): LatchMethods {
  return {
    latch: (name) => latch(core, name),
  };
}
