import type { WakePolicy } from '../../engine/WakeHub.js';

/** A `redisson_sc` message is the new permit count: it wakes up to that many local waiters (each needs at least one permit). */
export const permitWakePolicy: WakePolicy = (message) => {
  const count = Number(message);
  return Number.isSafeInteger(count) && count > 0 ? { wake: 'count', count } : { wake: 'none' };
};
