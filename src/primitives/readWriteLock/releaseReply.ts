import { int, type Reply } from '../../store/Script.js';

/** 0: not held by this owner (nothing changed); 1: one hold released, the lock is still held; 2: this release freed or downgraded the lock. */
export type ReadWriteRelease = 0 | 1 | 2;

export function parseReadWriteRelease(reply: Reply): ReadWriteRelease {
  return int(reply) as ReadWriteRelease;
}
