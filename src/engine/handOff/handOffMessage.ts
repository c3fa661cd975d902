import { NO_WAKE, type WakePolicy } from '../WakeHub.js';

/**
 * The messages of a direct hand-off, shared by every lock that hands itself over (`lock$`, `fairLock$`): a
 * release gives the lock to a waiter whose client listens, and tells that client on its own channel.
 *
 * - `rxlock:grant <token> <server µs> <member>`: the lock is now `<member>`'s, with fencing token `<token>`
 *   (-1 without fencing), as of the server's time. `<member>` is the waiter's name in that lock's queue; it
 *   may contain spaces (it runs to the end of the message).
 * - `rxlock:next <ms> <member>`: the lock was just handed to the waiter ahead of `<member>`; if that waiter
 *   never confirms it (frozen, cut off, dead), the lock is free again within `<ms>`, and `<member>` should
 *   try then rather than at its holder's TTL.
 */
export type HandOffMessage =
  | { readonly type: 'grant'; readonly token: number; readonly serverUs: number; readonly member: string }
  | { readonly type: 'next'; readonly afterMs: number; readonly member: string };

export const GRANT_PREFIX = 'rxlock:grant ';
export const NEXT_PREFIX = 'rxlock:next ';

/**
 * How long a handed lock lasts until its new holder confirms it, in hand-off windows (`handoffMs`): the
 * bound on how long a hand-off to a waiter that cannot use it keeps the lock from the live waiters.
 */
export const CONFIRM_HANDOFFS = 10;

/** Reads a hand-off message; undefined for any other message (Redisson's `0`, a ticket, a count). */
export function parseHandOffMessage(message: string): HandOffMessage | undefined {
  if (message.startsWith(GRANT_PREFIX)) {
    // Read by index: it runs once per hand-off.
    const tokenEnd = message.indexOf(' ', GRANT_PREFIX.length);
    const timeEnd = message.indexOf(' ', tokenEnd + 1);
    if (tokenEnd === -1 || timeEnd === -1) return undefined;
    return {
      type: 'grant',
      token: Number(message.slice(GRANT_PREFIX.length, tokenEnd)),
      serverUs: Number(message.slice(tokenEnd + 1, timeEnd)),
      member: message.slice(timeEnd + 1),
    };
  }
  if (message.startsWith(NEXT_PREFIX)) {
    const msEnd = message.indexOf(' ', NEXT_PREFIX.length);
    if (msEnd === -1) return undefined;
    return { type: 'next', afterMs: Number(message.slice(NEXT_PREFIX.length, msEnd)), member: message.slice(msEnd + 1) };
  }
  return undefined;
}

/** The grant message, as the memory store's scripts publish it. */
export function grantMessage(token: number, serverUs: number | string, member: string): string {
  return `${GRANT_PREFIX}${String(token)} ${String(serverUs)} ${member}`;
}

/** The next-in-line notice, as the memory store's scripts publish it. */
export function nextMessage(afterMs: number, member: string): string {
  return `${NEXT_PREFIX}${String(afterMs)} ${member}`;
}

/** Lua: `grantMessage` and `nextMessage` (the time as a string of µs, the others as Lua values). */
export const LUA_HAND_OFF_MESSAGES = `
local function grantMessage(token, timeUs, member)
  return '${GRANT_PREFIX}' .. token .. ' ' .. timeUs .. ' ' .. member
end
local function nextMessage(afterMs, member)
  return '${NEXT_PREFIX}' .. afterMs .. ' ' .. member
end`;

/** How a hand-off message wakes this client's waiters: a grant goes to the mailbox and its member, a notice to its member; anything else wakes nobody. */
export const HAND_OFF_WAKES: WakePolicy = (message) => {
  const handOff = parseHandOffMessage(message);
  if (handOff === undefined) return NO_WAKE;
  return handOff.type === 'grant'
    ? { wake: 'grant', member: handOff.member, token: handOff.token, serverUs: handOff.serverUs }
    : { wake: 'later', member: handOff.member, afterMs: handOff.afterMs };
};
