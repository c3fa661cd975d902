import { OP_MEMORY_MS } from '../../src/primitives/semaphore/opMemory.js';

/** Active timers of this process (setTimeout/setInterval handles), for leak checks. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, everyMs = 10): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > until) return false;
    await sleep(everyMs);
  }
}

/**
 * Whether `key` with TTL `pttl` is the op memory of a semaphore or latch (`rxlock_ops:{name}`), which outlives
 * the object by design and expires by itself: not a leak.
 */
export function isOpMemory(key: string, pttl: number): boolean {
  return key.startsWith('rxlock_ops:') && pttl > 0 && pttl <= OP_MEMORY_MS;
}
