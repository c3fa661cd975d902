import type { Contender } from './Contender.js';
import { floor } from './floor.js';
import { naiveSetNx } from './naiveSetNx.js';
import { floorNodeRedis, rxlockNodeRedis, rxlockScriptsNodeRedis } from './nodeRedis.js';
import { redisSemaphore } from './redisSemaphore.js';
import { redissonScripts } from './redissonScripts.js';
import { redlock } from './redlock.js';
import { rxlockFairLock } from './rxlockFairLock.js';
import { rxlockLock } from './rxlockLock.js';
import { rxlockScripts } from './rxlockScripts.js';

/** Every contender, in the order the tables show them. */
export const CONTENDERS: readonly Contender[] = [
  floor,
  redissonScripts,
  rxlockScripts,
  rxlockLock,
  rxlockFairLock,
  floorNodeRedis,
  rxlockScriptsNodeRedis,
  rxlockNodeRedis,
  redisSemaphore,
  redlock,
  naiveSetNx,
];
