import { int, list, type Reply } from '../../store/Script.js';

/** Granted, or refused with the lock hash's remaining TTL (-1: none, -2: gone). */
export type ReadWriteAttempt = { readonly granted: true } | { readonly granted: false; readonly ttl: number };

export function parseReadWriteAttempt(reply: Reply): ReadWriteAttempt {
  const [status, ttl] = list(reply);
  return int(status ?? 0) === 1 ? { granted: true } : { granted: false, ttl: int(ttl ?? -1) };
}
