import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import { hold$ } from '../../engine/hold.js';
import type { Lease } from '../../engine/Lease.js';
import { callSite } from '../../util/describeValue.js';
import { assertCount, assertName } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { runFor } from '../lock/queries.js';
import { semaphoreAcquireScript } from './acquireScript.js';
import { addPermitsScript, availablePermitsScript, deleteSemaphoreScript, trySetPermitsScript } from './adminScripts.js';
import { assertPermitChange, assertPermits, checkWaitOptions } from './checkPermits.js';
import { newOpId } from './opMemory.js';
import { permitWakePolicy, waitingForPermits } from './permitWakePolicy.js';
import { semaphoreReleaseScript } from './releaseScript.js';
import type { PermitPool } from './PermitPool.js';
import { semaphoreKeys } from './semaphoreKeys.js';

/** Options of `semaphore(name).acquire$`. */
export interface SemaphoreAcquireOptions {
  /**
   * How long to wait for the permits before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /** Cancels the wait, or gives the permits back, when it aborts; the stream errors with `signal.reason`. */
  signal?: AbortSignal | undefined;
}

const ACQUIRE_OPTION_KEYS: readonly string[] = ['waitMs', 'signal'];

/**
 * A counting semaphore (Redisson's RSemaphore): a count of permits in Redis that any client may take and
 * give back. Permits have no owner and no expiry: a client that dies holding some never gives them back
 * (use `leasedSemaphore` for permits that expire).
 */
export interface Semaphore extends PermitPool {
  /**
   * Takes `permits` permits (default 1), waiting until the count has them: emits one `Lease` while they are
   * held and gives them back on unsubscribe. Waiters are woken by the count that releases publish.
   */
  acquire$(permits?: number, options?: SemaphoreAcquireOptions): Observable<Lease>;
}

/** `semaphore(name)` as the client exposes it. A bad name throws at once: there is no stream yet to carry it. */
export function semaphore(core: ClientCore, name: string): Semaphore {
  const site = callSite('semaphore', name);
  assertName(name, site);
  const keys = semaphoreKeys(core.keyPrefix + name);
  const policy = permitWakePolicy(core, keys.channel);
  const publish = (): string => core.connection.publishCommand;
  return {
    name,
    acquire$: (permits = 1, options) =>
      defer(() => {
        const where = `${site}.acquire$`;
        assertPermits(permits, where);
        checkWaitOptions(options, ACQUIRE_OPTION_KEYS, where);
        const owner = core.newOwner();
        const holdId = `${core.clientId}:${owner}`;
        const release = () => core.connection.run(semaphoreReleaseScript, [keys.count, keys.holds, keys.channel], [holdId, publish()]);
        const held$ = hold$(
          {
            core,
            name,
            kind: 'semaphore',
            owner,
            waitMs: options?.waitMs,
            channel: keys.channel,
            policy,
            attempt: () =>
              core.connection
                .run(semaphoreAcquireScript, [keys.count, keys.holds], [permits, holdId])
                .pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: -1 }))),
            compensate: (settled) => fire(core, release(), settled),
          },
          () => ({
            core,
            name,
            kind: 'semaphore',
            owner,
            token: undefined,
            expiry: { type: 'none' },
            release: () => release().pipe(map((reply) => (reply === 1 ? 'released' : 'not-held'))),
          }),
        );
        return abortable(waitingForPermits(core, keys.channel, permits, held$), options?.signal);
      }),
    trySetPermits: async (permits) => {
      assertCount(permits, 'permits', `${site}.trySetPermits`, 0);
      return runFor(core, name, trySetPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    addPermits: async (permits) => {
      assertPermitChange(permits, `${site}.addPermits`);
      return runFor(core, name, addPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    availablePermits: () => runFor(core, name, availablePermitsScript, [keys.count], []),
    delete: () => runFor(core, name, deleteSemaphoreScript, [keys.count, keys.holds], []),
  };
}
