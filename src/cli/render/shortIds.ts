import type { LockObject } from '../inspect/LockObject.js';

/** Shows an id as a table cell: long random parts shortened, the rest as it is. */
export type ShortenId = (id: string) => string;

/** A random client id (rxlock's and Redisson's default), at the start of a `<clientId>:<owner>` id. */
const UUID_HEAD = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=:|$)/i;
/** A leased permit's id: 16 random bytes in hex. */
const PERMIT_ID = /^[0-9a-f]{32}$/i;
/** As `git log --oneline`: short enough for a table, long enough to pick an id out by eye. */
const MIN_PREFIX = 8;

/** The random part of `id` that may be shortened, if it has one. */
function randomPart(id: string): string | undefined {
  return UUID_HEAD.exec(id)?.[0] ?? (PERMIT_ID.test(id) ? id : undefined);
}

/**
 * Shortens the random client ids (UUIDs) and permit ids among `ids` to one prefix length, the shortest from 8
 * characters up that tells all of them apart, followed by `…`: `3f1e2a9b…:#1` for
 * `3f1e2a9b-5c4d-4e3f-9a8b-7c6d5e4f3a2b:#1`. Names a client chose (`clientId: 'billing-1'`) stay whole.
 */
export function idShortener(ids: Iterable<string>): ShortenId {
  const parts = [...new Set([...ids].flatMap((id) => randomPart(id) ?? []))];
  let length = MIN_PREFIX;
  const longest = Math.max(0, ...parts.map((part) => part.length));
  while (length < longest && new Set(parts.map((part) => part.slice(0, length).toLowerCase())).size < parts.length) length++;
  return (id) => {
    const part = randomPart(id);
    if (part === undefined || part.length <= length) return id;
    return `${part.slice(0, length)}…${id.slice(part.length)}`;
  };
}

/** Every id a table of `objects` shows: holders, queued waiters, the waiter a free lock is reserved for. */
export function shownIds(objects: readonly LockObject[]): string[] {
  return objects.flatMap((object) => [
    ...object.holders.map((holder) => holder.id),
    ...object.waiters.queued.map((waiter) => waiter.id),
    ...('handoff' in object && object.handoff !== null ? [object.handoff.for] : []),
  ]);
}
