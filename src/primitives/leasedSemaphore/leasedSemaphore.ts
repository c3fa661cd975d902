import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import { hold$ } from '../../engine/hold.js';
import { callSite } from '../../util/describeValue.js';
import { assertCount, assertDuration, assertName } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { assertLeaseOverDrift } from '../lock/lock.js';
import { runFor } from '../lock/queries.js';
import { addPermitsScript, deleteSemaphoreScript, trySetPermitsScript } from '../semaphore/adminScripts.js';
import { assertPermitChange, assertPermits, checkWaitOptions } from '../semaphore/checkPermits.js';
import { newOpId } from '../semaphore/opMemory.js';
import { permitWakePolicy, waitingForPermits } from '../semaphore/permitWakePolicy.js';
import { leasedAcquireScript } from './acquireScript.js';
import { leasedAvailablePermitsScript } from './availablePermitsScript.js';
import type { PermitPool } from '../semaphore/PermitPool.js';
import { leasedSemaphoreKeys } from './leasedSemaphoreKeys.js';
import { newPermitIds } from './permitIds.js';
import { toPermitLease, type PermitLease } from './PermitLease.js';
import { leasedReleaseScript } from './releaseScript.js';
import { leasedRenewKind } from './renewScript.js';

/** Options of `leasedSemaphore(name).acquire$`. */
export interface LeasedAcquireOptions {
  /**
   * A fixed lease in ms for each permit: it goes back to the pool by itself this long after the grant, and
   * the stream errors with `LockLostError` (`expired`) just before that.
   * @default undefined: the watchdog keeps the permits while the stream is subscribed; they expire
   * `watchdogTimeoutMs` after the holder's client stops renewing (it died)
   */
  leaseMs?: number | undefined;
  /**
   * How long to wait for the permits before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /** Cancels the wait, or gives the permits back, when it aborts; the stream errors with `signal.reason`. */
  signal?: AbortSignal | undefined;
}

const ACQUIRE_OPTION_KEYS: readonly string[] = ['leaseMs', 'waitMs', 'signal'];

/**
 * Most permits one `acquire$` may take. Every permit is an id in the command and one ZADD in the script, so
 * a million would block the client for seconds and Redis for about one.
 */
export const MAX_LEASED_PERMITS = 10_000;

/**
 * A semaphore whose permits each have an id and a lease (Redisson's RPermitExpirableSemaphore): permits
 * of a holder that died, or whose fixed lease ran out, go back to the pool by themselves.
 */
export interface LeasedSemaphore extends PermitPool {
  /**
   * Takes `permits` permits (default 1), waiting until the pool has them, or until the earliest held permit
   * expires: emits one `PermitLease` while they are held, errors with `LockLostError` if they expire, and
   * gives them back on unsubscribe. `availablePermits()` counts expired permits as back in the pool.
   */
  acquire$(permits?: number, options?: LeasedAcquireOptions): Observable<PermitLease>;
}

/** `leasedSemaphore(name)` as the client exposes it. A bad name throws at once: there is no stream yet to carry it. */
export function leasedSemaphore(core: ClientCore, name: string): LeasedSemaphore {
  const site = callSite('leasedSemaphore', name);
  assertName(name, site);
  const fullName = core.keyPrefix + name;
  const keys = leasedSemaphoreKeys(fullName);
  const policy = permitWakePolicy(core, keys.channel);
  const publish = (): string => core.connection.publishCommand;
  return {
    name,
    acquire$: (permits = 1, options) =>
      defer(() => {
        const where = `${site}.acquire$`;
        assertPermits(permits, where);
        if (permits > MAX_LEASED_PERMITS) {
          throw new RangeError(
            `rxlock: ${where}: "permits" must be at most ${String(MAX_LEASED_PERMITS)} per acquire$ (each is an id and a ZADD), got ${String(permits)}`,
          );
        }
        checkWaitOptions(options, ACQUIRE_OPTION_KEYS, where);
        const leaseMs = options?.leaseMs;
        if (leaseMs !== undefined) assertDuration(leaseMs, 'leaseMs', where, { min: 10 });
        assertLeaseOverDrift(leaseMs, core.settings, where);
        const owner = core.newOwner();
        const ids = newPermitIds(permits);
        const ttl = leaseMs ?? core.settings.watchdogTimeoutMs;
        const release = () => core.connection.run(leasedReleaseScript, [keys.count, keys.timeouts, keys.channel], [publish(), ...ids]);
        const held$ = hold$(
          {
            core,
            name,
            kind: 'leasedSemaphore',
            owner,
            waitMs: options?.waitMs,
            channel: keys.channel,
            policy,
            attempt: () =>
              core.connection
                .run(leasedAcquireScript, [keys.count, keys.timeouts, keys.channel], [permits, ttl, publish(), ...ids])
                .pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: reply.retryInMs }))),
            compensate: (settled) => fire(core, release(), settled),
          },
          () => ({
            core,
            name,
            kind: 'leasedSemaphore',
            owner,
            token: undefined,
            expiry:
              leaseMs === undefined ? { type: 'watchdog', renewKind: leasedRenewKind, key: fullName, field: ids.join(',') } : { type: 'fixed', ms: leaseMs },
            release: () => release().pipe(map((reply) => (reply === 1 ? 'released' : 'not-held'))),
          }),
        );
        return abortable(waitingForPermits(core, keys.channel, permits, held$), options?.signal).pipe(map((lease) => toPermitLease(lease, ids)));
      }),
    trySetPermits: async (permits) => {
      assertCount(permits, 'permits', `${site}.trySetPermits`, 0);
      return runFor(core, name, trySetPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    addPermits: async (permits) => {
      assertPermitChange(permits, `${site}.addPermits`);
      return runFor(core, name, addPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    availablePermits: () => runFor(core, name, leasedAvailablePermitsScript, [keys.count, keys.timeouts, keys.channel], [publish()]),
    delete: () => runFor(core, name, deleteSemaphoreScript, [keys.count, keys.timeouts], []),
  };
}
