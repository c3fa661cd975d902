import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import type { Lease } from '../../engine/Lease.js';
import { fire } from '../../engine/send.js';
import type { WakePolicy } from '../../engine/WakeHub.js';
import { callSite, describeValue } from '../../util/describeValue.js';
import { assertDuration, assertName, assertOptions, assertOwner, assertSignal } from '../../util/validate.js';
import { abortable } from '../abortable.js';
import { assertLeaseOverDrift, checkWatchdogTimeout } from '../lock/lock.js';
import { groupAcquireScript } from './acquireScript.js';
import { groupLockKeys } from './groupLockKeys.js';
import { groupReleaseScript } from './releaseScript.js';
import { groupRenewField, groupRenewKind } from './renewScript.js';
import { valueField, type GroupValue } from './valueField.js';
import { optionKeys } from '../../util/optionKeys.js';

/** Options of `groupLock$`. */
export interface GroupLockOptions {
  /**
   * A fixed lease in ms for every value: the hold expires this long after the grant and is not renewed. The
   * stream errors with `LockLostError` (`expired`) just before it runs out.
   * @default undefined: the watchdog keeps every value for as long as the stream is subscribed
   */
  leaseMs?: number | undefined;
  /**
   * The watchdog timeout of this hold: its values last this long between renewals. Not with `leaseMs`.
   * @default the client's `watchdogTimeoutMs` (30 s)
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * How long to wait for every value to be free before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /**
   * Hold as this owner: holds of one owner on the same values re-enter (each value counts its holds).
   * @default a new owner for every subscription
   */
  owner?: string | undefined;
  /**
   * Cancels the wait, or ends the hold, when it aborts; the stream errors with `signal.reason`.
   * @default undefined: only unsubscribing cancels
   */
  signal?: AbortSignal | undefined;
}

const OPTION_KEYS = optionKeys<GroupLockOptions>({ leaseMs: true, watchdogTimeoutMs: true, waitMs: true, owner: true, signal: true });

/**
 * Most values one `groupLock$` may lock: each is an argument of every acquire, release and renewal, and about
 * six hash commands in their scripts.
 */
export const MAX_GROUP_VALUES = 10_000;

/**
 * Any release wakes every local waiter of the group: they wait for different values, and only their attempts
 * can tell whose were freed. Redisson's own releases publish `0`, rxlock's `1` (see `GROUP_RELEASED`).
 */
const WAKE_ALL: WakePolicy = (message) => (message === '0' || message === '1' ? { wake: 'all' } : { wake: 'none' });

/**
 * `groupLock$` as the client exposes it: every value of `values` locked together in the hash `group` (Redisson's
 * RedissonFasterMultiLock, `getMultiLock(group, values)`), taken, renewed and released in one script each.
 */
export function groupLock$(core: ClientCore, group: string, values: readonly GroupValue[], options: GroupLockOptions = {}): Observable<Lease> {
  return defer(() => {
    const where = callSite('groupLock$', group);
    assertName(group, where);
    const fields = checkValues(values, where);
    checkGroupOptions(options, where, core);
    const { leaseMs, waitMs } = options;
    const fullName = core.keyPrefix + group;
    const keys = groupLockKeys(fullName);
    const owner = options.owner ?? core.newOwner();
    const lockName = `${core.clientId}:${owner}`;
    // An explicit owner may re-enter, so each of its holds needs an id of its own; a new owner never does.
    const holdId = options.owner === undefined ? '' : `${core.clientId}:${core.newOwner()}`;
    const ttl = leaseMs ?? options.watchdogTimeoutMs ?? core.settings.watchdogTimeoutMs;
    const release = () =>
      core.connection.run(groupReleaseScript, [keys.lock, keys.channel, keys.holds], [lockName, holdId, core.connection.publishCommand, ttl, ...fields]);
    const held$ = hold$({
      core,
      name: group,
      kind: 'groupLock',
      owner,
      waitMs,
      channel: keys.channel,
      policy: WAKE_ALL,
      attempt: () =>
        core.connection
          .run(groupAcquireScript, [keys.lock, keys.holds], [ttl, lockName, holdId, ...fields])
          .pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: reply.retryInMs }))),
      compensate: (settled) => fire(core, release(), settled),
      hold: () => ({
        core,
        name: group,
        kind: 'groupLock',
        owner,
        token: undefined,
        expiry:
          leaseMs === undefined
            ? { type: 'watchdog', ttlMs: ttl, renewKind: groupRenewKind, key: fullName, field: groupRenewField(lockName, fields) }
            : { type: 'fixed', ms: leaseMs },
        release: () => release().pipe(map((reply) => (reply === 1 ? 'released' : 'not-held'))),
      }),
    });
    return abortable(held$, options.signal);
  });
}

/** The values' fields, each once (Redisson keeps them in a set): 1 to `MAX_GROUP_VALUES` strings or byte arrays. */
function checkValues(values: unknown, where: string): string[] {
  if (!Array.isArray(values)) throw new TypeError(`rxlock: ${where}: "values" must be an array of strings or Uint8Arrays, got ${describeValue(values)}`);
  if (values.length === 0 || values.length > MAX_GROUP_VALUES) {
    throw new RangeError(`rxlock: ${where}: "values" must hold 1 to ${String(MAX_GROUP_VALUES)} values, got ${String(values.length)}`);
  }
  const fields = new Set<string>();
  for (const value of values as unknown[]) {
    if (typeof value === 'string') {
      // Java would encode a lone surrogate as "?", TextEncoder as U+FFFD: the two would lock different fields.
      if (!value.isWellFormed()) throw new TypeError(`rxlock: ${where}: value ${describeValue(value)} contains an unpaired UTF-16 surrogate`);
    } else if (!(value instanceof Uint8Array)) {
      throw new TypeError(`rxlock: ${where}: each value must be a string or a Uint8Array, got ${describeValue(value)}`);
    }
    fields.add(valueField(value));
  }
  return [...fields];
}

function checkGroupOptions(options: GroupLockOptions, where: string, core: ClientCore): void {
  assertOptions(options, OPTION_KEYS, where);
  if (options.leaseMs !== undefined) {
    assertDuration(options.leaseMs, 'leaseMs', where, { min: 10 });
    assertLeaseOverDrift(options.leaseMs, core.settings, where);
  }
  checkWatchdogTimeout(options, where, core.settings);
  if (options.waitMs !== undefined) assertDuration(options.waitMs, 'waitMs', where, { min: 0 });
  if (options.owner !== undefined) assertOwner(options.owner, where);
  assertSignal(options.signal, where);
}
