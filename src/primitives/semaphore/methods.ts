import type { ClientCore } from '../../engine/ClientCore.js';
import { semaphore, type Semaphore } from './semaphore.js';

/** The semaphore (`semaphore(name)`) part of the client. */
export interface SemaphoreMethods {
  /**
   * A counting semaphore with Redisson's RSemaphore layout: `acquire$`, `trySetPermits` (with a TTL), `addPermits`,
   * `releaseIfExists`, `drainPermits`, `availablePermits`, `delete`.
   *
   * @example
   * const renders = client.semaphore('renders');
   * await renders.trySetPermits(4); // at most 4 renders at a time, across every client
   * await withLease(renders.acquire$(), (lease) => render(lease.signal));
   */
  semaphore(name: string): Semaphore;
}

export function semaphoreMethods(core: ClientCore): SemaphoreMethods {
  return {
    semaphore: (name) => semaphore(core, name),
  };
}
