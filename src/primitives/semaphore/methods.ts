import type { ClientCore } from '../../engine/ClientCore.js';
import { semaphore, type Semaphore } from './semaphore.js';

/** The semaphore (`semaphore(name)`) part of the client. */
export interface SemaphoreMethods {
  /** A counting semaphore with Redisson's RSemaphore layout: `acquire$`, `trySetPermits`, `addPermits`, `availablePermits`, `delete`. */
  semaphore(name: string): Semaphore;
}

export function semaphoreMethods(core: ClientCore): SemaphoreMethods {
  return {
    semaphore: (name) => semaphore(core, name),
  };
}
