import { InvalidArgumentError } from 'commander';
import { OBJECT_KINDS, type ObjectKind } from '../inspect/LockObject.js';

/** `--kind lock,fairLock`: a set of known kinds. */
export function parseKinds(value: string): Set<ObjectKind> {
  const kinds = new Set<ObjectKind>();
  for (const part of value.split(',')) {
    const kind = OBJECT_KINDS.find((known) => known.toLowerCase() === part.trim().toLowerCase());
    if (kind === undefined) throw new InvalidArgumentError(`unknown kind ${JSON.stringify(part.trim())}; known: ${OBJECT_KINDS.join(', ')}`);
    kinds.add(kind);
  }
  return kinds;
}

/** A whole number of milliseconds, at least `min`. */
export function milliseconds(min: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(`must be a whole number of milliseconds ≥ ${min}`);
    return parsed;
  };
}

/** A positive number. */
export function positive(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
}

export const KIND_HELP = `comma-separated kinds to show (${OBJECT_KINDS.join(', ')}); semaphore, leasedSemaphore or latch also says what an integer string nothing else tells apart is`;
