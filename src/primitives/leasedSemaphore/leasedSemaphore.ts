import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import { LockLostError } from '../../errors/LockLostError.js';
import { callSite } from '../../util/describeValue.js';
import { assertCount, assertDuration, assertName } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { assertLeaseOverDrift, checkWatchdogTimeout } from '../lock/lock.js';
import { runFor } from '../lock/queries.js';
import { addPermitsScript, deleteSemaphoreScript, trySetPermitsScript } from '../semaphore/adminScripts.js';
import { assertPermitChange, assertPermits, checkWaitOptions } from '../semaphore/checkPermits.js';
import { newOpId } from '../semaphore/opMemory.js';
import { PERMIT_WAKES } from '../semaphore/permitWakePolicy.js';
import { leasedAcquireScript } from './acquireScript.js';
import { leasedAvailablePermitsScript } from './availablePermitsScript.js';
import type { PermitPool } from '../semaphore/PermitPool.js';
import { leasedSemaphoreKeys } from './leasedSemaphoreKeys.js';
import { permitCountsScript, setPermitsScript, type PermitCounts } from './permitCountsScript.js';
import { assertPermitId, assertPermitIds, newPermitIds } from './permitIds.js';
import { toPermitLease, type PermitLease } from './PermitLease.js';
import { leasedReleaseScript } from './releaseScript.js';
import { leasedRenewKind } from './renewScript.js';
import { tryReleaseScript } from './tryReleaseScript.js';
import { leaseTimeScript, updateLeaseScript } from './updateLeaseScript.js';
import { optionKeys } from '../../util/optionKeys.js';

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
   * The watchdog timeout of these permits: they last this long between renewals, and go back to the pool this
   * long after their holder's client stopped renewing them. Not with `leaseMs`.
   * @default the client's `watchdogTimeoutMs` (30 s)
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * How long to wait for the permits before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /**
   * Cancels the wait, or gives the permits back, when it aborts; the stream errors with `signal.reason`.
   * @default undefined: only unsubscribing cancels
   */
  signal?: AbortSignal | undefined;
}

const ACQUIRE_OPTION_KEYS = optionKeys<LeasedAcquireOptions>({ leaseMs: true, watchdogTimeoutMs: true, waitMs: true, signal: true });

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
   *
   * @example
   * client.leasedSemaphore('gpus').acquire$(1).pipe(switchMap((permit) => train$(permit.signal))).subscribe({
   *   error: (error: unknown) => console.error('lost the permit or failed:', error),
   * });
   */
  acquire$(permits?: number, options?: LeasedAcquireOptions): Observable<PermitLease>;
  /**
   * Gives one permit back by its id if it is held with its lease running (Redisson's `tryRelease(id)`):
   * a permit a Java peer took, or one of a `PermitLease` (whose stream then errors with `LockLostError` at its
   * next renewal, or ends at its fixed lease). Resolves true if it did.
   *
   * @example
   * // A permit id a Java service logged before it hung.
   * const released = await client.leasedSemaphore('gpus').tryRelease('0f1e2d3c4b5a69788796a5b4c3d2e1f0');
   */
  tryRelease(permitId: string): Promise<boolean>;
  /**
   * Gives several permits back by id, all or none (Redisson's `tryRelease(List)`): if any of them is not held
   * with its lease running, nothing changes and it resolves 0; else it resolves how many went back.
   *
   * @example
   * const count = await client.leasedSemaphore('gpus').tryRelease(permitIds);
   */
  tryRelease(permitIds: readonly string[]): Promise<number>;
  /**
   * `tryRelease`, rejecting with `LockLostError` (`not-held`) when not every permit went back: one had expired or
   * was never held (Redisson's `release(id)` / `release(List)`).
   *
   * @example
   * await client.leasedSemaphore('gpus').release(permitId); // LockLostError if it had expired
   */
  release(permitIds: string | readonly string[]): Promise<void>;
  /**
   * Sets a held permit's lease to end `leaseMs` from now, or never with `Infinity` (Redisson's
   * `updateLeaseTime`). Resolves false, changing nothing, when the permit is not held. A permit of a
   * `PermitLease` renewed by the watchdog gets the watchdog's lease again at its next renewal, and one with a
   * fixed `leaseMs` still errors with `LockLostError` (`expired`) when its own lease runs out.
   *
   * @example
   * // A Java peer's permit, which its holder asked to keep 10 more minutes.
   * const extended = await client.leasedSemaphore('gpus').updateLeaseTime(permitId, 600_000);
   */
  updateLeaseTime(permitId: string, leaseMs: number): Promise<boolean>;
  /**
   * The ms left on a held permit's lease, `Infinity` for a permit without a lease, or `undefined` when the
   * permit is not held (released, expired, never taken; Redisson's `getLeaseTime` throws there).
   *
   * @example
   * const leftMs = await client.leasedSemaphore('gpus').getLeaseTime(permitId);
   * if (leftMs === undefined) console.log('no longer held');
   */
  getLeaseTime(permitId: string): Promise<number | undefined>;
  /**
   * The permits held right now, with or without a lease (Redisson's `acquiredPermits`); expired ones are counted back first.
   *
   * @example
   * const busy = await client.leasedSemaphore('gpus').acquiredPermits();
   */
  acquiredPermits(): Promise<number>;
  /**
   * Available plus held permits (Redisson's `getPermits`); 0 when the semaphore has no count.
   *
   * @example
   * const total = await client.leasedSemaphore('gpus').totalPermits();
   */
  totalPermits(): Promise<number>;
  /**
   * Makes the total (available plus held) `permits` by moving the available count, held permits untouched
   * (Redisson's `setPermits`); sets the count when there is none. Resolves with the new available count.
   *
   * @example
   * // A third GPU was installed: 3 in all, whatever is held now.
   * await client.leasedSemaphore('gpus').setPermits(3);
   */
  setPermits(permits: number): Promise<number>;
}

/** `leasedSemaphore(name)` as the client exposes it. A bad name throws at once: there is no stream yet to carry it. */
export function leasedSemaphore(core: ClientCore, name: string): LeasedSemaphore {
  const site = callSite('leasedSemaphore', name);
  assertName(name, site);
  const fullName = core.keyPrefix + name;
  const keys = leasedSemaphoreKeys(fullName);
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
        checkWatchdogTimeout(options ?? {}, where, core.settings);
        const owner = core.newOwner();
        const ids = newPermitIds(permits);
        const ttl = leaseMs ?? options?.watchdogTimeoutMs ?? core.settings.watchdogTimeoutMs;
        const release = () => core.connection.run(leasedReleaseScript, [keys.count, keys.timeouts, keys.channel], [publish(), ...ids]);
        const held$ = hold$({
          core,
          name,
          kind: 'leasedSemaphore',
          owner,
          waitMs: options?.waitMs,
          channel: keys.channel,
          policy: PERMIT_WAKES,
          need: permits,
          attempt: () =>
            core.connection
              .run(leasedAcquireScript, [keys.count, keys.timeouts, keys.channel], [permits, ttl, publish(), ...ids])
              .pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: reply.retryInMs }))),
          compensate: (settled) => fire(core, release(), settled),
          hold: () => ({
            core,
            name,
            kind: 'leasedSemaphore',
            owner,
            token: undefined,
            expiry:
              leaseMs === undefined
                ? { type: 'watchdog', ttlMs: ttl, renewKind: leasedRenewKind, key: fullName, field: ids.join(',') }
                : { type: 'fixed', ms: leaseMs },
            release: () => release().pipe(map((reply) => (reply === 1 ? 'released' : 'not-held'))),
          }),
        });
        return abortable(held$, options?.signal).pipe(map((lease) => toPermitLease(lease, ids)));
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
    tryRelease: tryRelease as LeasedSemaphore['tryRelease'],
    release: async (permitIds) => {
      const ids = typeof permitIds === 'string' ? [permitIds] : permitIds;
      const released = await releaseIds(ids, `${site}.release`);
      if (released !== ids.length) throw new LockLostError(name, `permit${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`, 'not-held');
    },
    updateLeaseTime: async (permitId, leaseMs) => {
      const where = `${site}.updateLeaseTime`;
      assertPermitId(permitId, where);
      if (leaseMs !== Infinity) assertDuration(leaseMs, 'leaseMs', where, { min: 1 });
      const lease = leaseMs === Infinity ? '' : leaseMs;
      return runFor(core, name, updateLeaseScript, [keys.count, keys.timeouts, keys.channel], [permitId, lease, publish()]);
    },
    getLeaseTime: async (permitId) => {
      assertPermitId(permitId, `${site}.getLeaseTime`);
      const left = await runFor(core, name, leaseTimeScript, [keys.count, keys.timeouts, keys.channel], [permitId, publish()]);
      return left === 0 ? undefined : left === -1 ? Infinity : left;
    },
    acquiredPermits: async () => (await counts()).acquired,
    totalPermits: async () => {
      const { exists, available, acquired } = await counts();
      return exists ? available + acquired : 0;
    },
    setPermits: async (permits) => {
      assertCount(permits, 'permits', `${site}.setPermits`, 0);
      return runFor(core, name, setPermitsScript, [keys.count, keys.timeouts, keys.channel], [permits, publish()]);
    },
  };

  function counts(): Promise<PermitCounts> {
    return runFor(core, name, permitCountsScript, [keys.count, keys.timeouts, keys.channel], [publish()]);
  }

  async function releaseIds(ids: readonly string[], where: string): Promise<number> {
    assertPermitIds(ids, where, MAX_LEASED_PERMITS);
    return runFor(core, name, tryReleaseScript, [keys.count, keys.timeouts, keys.channel, keys.ops], [newOpId(), publish(), ...ids]);
  }

  async function tryRelease(permitIds: string | readonly string[]): Promise<boolean | number> {
    if (typeof permitIds === 'string') return (await releaseIds([permitIds], `${site}.tryRelease`)) === 1;
    return releaseIds(permitIds, `${site}.tryRelease`);
  }
}
