import { randomUUID } from 'node:crypto';

/**
 * How long a count's mutation (`trySetPermits`, `addPermits`, `trySetCount`, `countDown`) is remembered by its
 * op id (see `recallOp`). ioredis re-sends the commands that were in flight when a connection dropped, once it
 * is back; a re-sent copy that finds its id answers the first reply and changes nothing. Five minutes outlasts
 * ioredis's default reconnect budget (20 attempts per request) with room to spare.
 */
export const OP_MEMORY_MS = 300_000;

/** A new op id: unique across clients, so ops of different clients never answer for each other. */
export function newOpId(): string {
  return randomUUID();
}
