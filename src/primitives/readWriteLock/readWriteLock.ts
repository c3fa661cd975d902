import { defer, map, type Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import type { Hold } from '../../engine/Hold.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import type { Lease } from '../../engine/Lease.js';
import type { WakePolicy } from '../../engine/WakeHub.js';
import { callSite } from '../../util/describeValue.js';
import { abortable } from '../abortable.js';
import { checkLockOptions, chooseOwner } from '../lock/lock.js';
import { readAcquireScript } from './readAcquireScript.js';
import { readReleaseScript } from './readReleaseScript.js';
import { readTimeoutPrefix, readWriteLockKeys, writeFieldOf } from './readWriteLockKeys.js';
import { readWriteRenewKind } from './renewScript.js';
import { writeAcquireScript } from './writeAcquireScript.js';
import { writeReleaseScript } from './writeReleaseScript.js';
import { optionKeys } from '../../util/optionKeys.js';

/** Options of `readLock$` and `writeLock$`. */
export interface ReadWriteLockOptions {
  /**
   * A fixed lease in ms: the hold expires this long after the grant and is not renewed. The stream errors
   * with `LockLostError` (`expired`) just before it runs out.
   * @default undefined: the watchdog keeps the hold for as long as the stream is subscribed
   */
  leaseMs?: number | undefined;
  /**
   * The watchdog timeout of this hold: its key lasts this long between renewals. Not with `leaseMs`.
   * @default the client's `watchdogTimeoutMs` (30 s)
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * How long to wait before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /**
   * Hold as this owner. Holds of one owner re-enter, and an owner that holds the write lock may also take
   * the read lock (downgrade). An owner that holds the read lock gets `LockUpgradeError` for the write lock.
   * @default a new owner for every subscription
   */
  owner?: string | undefined;
  /**
   * Cancels the wait, or ends the hold, when it aborts; the stream errors with `signal.reason`.
   * @default undefined: only unsubscribing cancels
   */
  signal?: AbortSignal | undefined;
}

const OPTION_KEYS = optionKeys<ReadWriteLockOptions>({ leaseMs: true, watchdogTimeoutMs: true, waitMs: true, owner: true, signal: true });

type Side = 'read' | 'write';

/** `1` (a write unlock) lets every waiting reader in at once; `0` (the last read unlock) frees the lock for one. */
const wakePolicy: WakePolicy = (message) => {
  if (message === '1') return { wake: 'all' };
  return message === '0' ? { wake: 'one' } : { wake: 'none' };
};

/** One side of a read-write lock as a cold Observable of the held lease. */
function readWriteHold$(core: ClientCore, name: string, side: Side, options: ReadWriteLockOptions = {}): Observable<Hold> {
  const { leaseMs, waitMs } = options;
  const fullName = core.keyPrefix + name;
  const keys = readWriteLockKeys(fullName);
  const kind = side === 'read' ? 'readLock' : 'writeLock';
  return defer(() => {
    const { owner, shared } = chooseOwner(core, fullName, options.owner);
    const readField = `${core.clientId}:${owner}`;
    const writeField = writeFieldOf(readField);
    const field = side === 'read' ? readField : writeField;
    const prefix = readTimeoutPrefix(keys, readField);
    const holdId = shared ? `${core.clientId}:${core.newOwner()}` : '';
    const ttl = leaseMs ?? options.watchdogTimeoutMs ?? core.settings.watchdogTimeoutMs;
    const publish = core.connection.publishCommand;
    const release = () =>
      side === 'read'
        ? core.connection.run(readReleaseScript, [keys.lock, keys.channel, prefix, keys.timeoutBase, keys.holds], [readField, holdId, publish])
        : core.connection.run(writeReleaseScript, [keys.lock, keys.channel, keys.holds], [writeField, holdId, publish]);
    const attempt = () =>
      side === 'read'
        ? core.connection.run(readAcquireScript, [keys.lock, keys.holds, prefix], [ttl, readField, writeField, holdId])
        : core.connection.run(writeAcquireScript, [keys.lock, keys.holds], [ttl, writeField, readField, holdId]);
    const held$ = hold$({
      core,
      name,
      kind,
      owner,
      waitMs,
      channel: keys.channel,
      policy: wakePolicy,
      attempt: () =>
        attempt().pipe(map((reply) => (reply.granted ? { granted: true as const, grant: undefined } : { granted: false as const, retryInMs: reply.ttl }))),
      compensate: (settled) => fire(core, release(), settled),
      hold: () => ({
        core,
        name,
        kind,
        owner,
        token: undefined,
        expiry: leaseMs === undefined ? { type: 'watchdog', ttlMs: ttl, renewKind: readWriteRenewKind, key: keys.lock, field } : { type: 'fixed', ms: leaseMs },
        release: () => release().pipe(map((reply) => (reply === 0 ? 'not-held' : 'released'))),
      }),
    });
    return abortable(held$, options.signal);
  });
}

/** `readLock$` as the client exposes it: validates, then holds. */
export function readLock$(core: ClientCore, name: string, options?: ReadWriteLockOptions): Observable<Lease> {
  return defer(() => {
    checkLockOptions(callSite('readLock$', name), name, options, OPTION_KEYS, core.settings);
    return readWriteHold$(core, name, 'read', options);
  });
}

/** `writeLock$` as the client exposes it: validates, then holds. */
export function writeLock$(core: ClientCore, name: string, options?: ReadWriteLockOptions): Observable<Lease> {
  return defer(() => {
    checkLockOptions(callSite('writeLock$', name), name, options, OPTION_KEYS, core.settings);
    return readWriteHold$(core, name, 'write', options);
  });
}
