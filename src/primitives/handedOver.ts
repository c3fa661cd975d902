import type { Reply } from '../store/Script.js';

/**
 * What a lock's release (or a waiter's leave) answers when its final unlock gave the lock straight to a
 * waiter whose client listens: the grant travels in the hand-off message.
 */
export const HANDED_OVER = 3;

/** `Script.handsOver` of the scripts that may answer `HANDED_OVER`. */
export function handedOver(reply: Reply): boolean {
  return reply === HANDED_OVER;
}
