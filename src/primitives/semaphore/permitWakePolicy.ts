import { NO_WAKE, type WakePolicy } from '../../engine/WakeHub.js';

/**
 * A `redisson_sc` message is the new permit count: it wakes as many local waiters as it can satisfy (the
 * hub wakes them all while one of them needs more than one permit, see `Wake`'s `permits`).
 */
export const PERMIT_WAKES: WakePolicy = (message) => {
  const count = Number(message);
  if (!Number.isSafeInteger(count) || count <= 0) return NO_WAKE;
  return { wake: 'permits', count };
};
