import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import type { Lease } from '../../engine/Lease.js';
import { callSite } from '../../util/describeValue.js';
import { assertCount, assertDuration, assertName, assertOptions } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { runFor } from '../lock/queries.js';
import { semaphoreAcquireScript } from './acquireScript.js';
import { addPermitsScript, availablePermitsScript, deleteSemaphoreScript, trySetPermitsScript } from './adminScripts.js';
import { assertPermitChange, assertPermits, checkWaitOptions } from './checkPermits.js';
import { drainPermitsScript } from './drainPermitsScript.js';
import { newOpId } from './opMemory.js';
import { PERMIT_WAKES } from './permitWakePolicy.js';
import { releaseIfExistsScript } from './releaseIfExistsScript.js';
import { semaphoreReleaseScript } from './releaseScript.js';
import type { PermitPool } from './PermitPool.js';
import { semaphoreKeys } from './semaphoreKeys.js';
import { optionKeys } from '../../util/optionKeys.js';

/** Options of `semaphore(name).acquire$`. */
export interface SemaphoreAcquireOptions {
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

const ACQUIRE_OPTION_KEYS = optionKeys<SemaphoreAcquireOptions>({ waitMs: true, signal: true });

/** Options of `semaphore(name).trySetPermits`. */
export interface TrySetPermitsOptions {
  /**
   * The count expires this long after it was set (Redisson's `trySetPermits(permits, Duration)`): the
   * semaphore is gone then, as after `delete()`, and holds' later releases change nothing.
   * @default undefined: the count never expires
   */
  ttlMs?: number | undefined;
}

const TRY_SET_OPTION_KEYS = optionKeys<TrySetPermitsOptions>({ ttlMs: true });

/**
 * A counting semaphore (Redisson's RSemaphore): a count of permits in Redis that any client may take and
 * give back. Permits have no owner and no expiry: a client that dies holding some never gives them back
 * (use `leasedSemaphore` for permits that expire).
 */
export interface Semaphore extends PermitPool {
  /**
   * Takes `permits` permits (default 1), waiting until the count has them: emits one `Lease` while they are
   * held and gives them back on unsubscribe. Waiters are woken by the count that releases publish.
   *
   * @example
   * await withLease(client.semaphore('renders').acquire$(2, { waitMs: 10_000 }), (lease) => renderPair(lease.signal));
   */
  acquire$(permits?: number, options?: SemaphoreAcquireOptions): Observable<Lease>;
  /**
   * Sets the count to `permits` if the semaphore has no count yet, expiring after `ttlMs` when given. Resolves true if it did.
   *
   * @example
   * // Every instance may run this at start-up: only the first one sets the count.
   * await client.semaphore('renders').trySetPermits(4);
   * // A count for today's batch, gone in a day.
   * await client.semaphore('batch:today').trySetPermits(100, { ttlMs: 86_400_000 });
   */
  trySetPermits(permits: number, options?: TrySetPermitsOptions): Promise<boolean>;
  /**
   * Gives `permits` permits back (Redisson's `releaseIfExists`) only if the semaphore has a count: one that
   * expired or was deleted is not brought back to life. Resolves true if it did. Permits held through
   * `acquire$` go back by themselves; this is for permits a peer took without rxlock (Redisson's `acquire`).
   *
   * @example
   * // Gives back the permit a Java service took with RSemaphore.acquire() before it crashed.
   * await client.semaphore('renders').releaseIfExists(1);
   */
  releaseIfExists(permits: number): Promise<boolean>;
  /**
   * Takes every available permit (Redisson's `drainPermits`): sets the count to 0 and resolves with what it
   * was, which is negative if it was below 0 (the count then rises to 0). Holds keep their permits and give
   * them back on release.
   *
   * @example
   * // Stops new renders for maintenance; addPermits(taken) lets them in again.
   * const taken = await client.semaphore('renders').drainPermits();
   */
  drainPermits(): Promise<number>;
}

/** `semaphore(name)` as the client exposes it. A bad name throws at once: there is no stream yet to carry it. */
export function semaphore(core: ClientCore, name: string): Semaphore {
  const site = callSite('semaphore', name);
  assertName(name, site);
  const keys = semaphoreKeys(core.keyPrefix + name);
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
        const held$ = hold$({
          core,
          name,
          kind: 'semaphore',
          owner,
          waitMs: options?.waitMs,
          channel: keys.channel,
          policy: PERMIT_WAKES,
          need: permits,
          attempt: () =>
            core.connection
              .run(semaphoreAcquireScript, [keys.count, keys.holds], [permits, holdId])
              .pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: -1 }))),
          compensate: (settled) => fire(core, release(), settled),
          hold: () => ({
            core,
            name,
            kind: 'semaphore',
            owner,
            token: undefined,
            expiry: { type: 'none' },
            release: () => release().pipe(map((reply) => (reply === 1 ? 'released' : 'not-held'))),
          }),
        });
        return abortable(held$, options?.signal);
      }),
    trySetPermits: async (permits, options) => {
      const where = `${site}.trySetPermits`;
      assertCount(permits, 'permits', where, 0);
      assertOptions(options, TRY_SET_OPTION_KEYS, where);
      const ttlMs = options?.ttlMs;
      if (ttlMs !== undefined) assertDuration(ttlMs, 'ttlMs', where, { min: 1 });
      return runFor(core, name, trySetPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish(), ttlMs ?? '']);
    },
    releaseIfExists: async (permits) => {
      assertPermits(permits, `${site}.releaseIfExists`);
      return runFor(core, name, releaseIfExistsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    drainPermits: () => runFor(core, name, drainPermitsScript, [keys.count, keys.ops], [newOpId()]),
    addPermits: async (permits) => {
      assertPermitChange(permits, `${site}.addPermits`);
      return runFor(core, name, addPermitsScript, [keys.count, keys.channel, keys.ops], [permits, newOpId(), publish()]);
    },
    availablePermits: () => runFor(core, name, availablePermitsScript, [keys.count], []),
    delete: () => runFor(core, name, deleteSemaphoreScript, [keys.count, keys.holds], []),
  };
}
