import { defer, map, type Observable } from 'rxjs';
import type { AttemptReply, LockSpec } from '../../engine/acquisition.js';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Expiry, HoldSpec } from '../../engine/Hold.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import type { Lease } from '../../engine/Lease.js';
import { fire } from '../../engine/send.js';
import { callSite } from '../../util/describeValue.js';
import { optionKeys } from '../../util/optionKeys.js';
import { abortable } from '../abortable.js';
import { lockAcquireScript } from '../lock/acquireScript.js';
import { checkLockOptions, chooseOwner, type LockOptions } from '../lock/lock.js';
import { LOCK_RENEW_KIND, LockHold, lockReleaseCall } from '../lock/lockHold.js';
import { lockKeys, type LockKeys } from '../lock/lockKeys.js';
import { backOffOf, type BackOff, type BackOffPolicy } from './backOff.js';

/** Options of `spinLock$`: those of `lock$`, and how to wait between attempts. */
export interface SpinLockOptions extends LockOptions {
  /** The pauses between attempts (Redisson's `LockOptions.BackOff`). @default exponential from 1 ms to 128 ms, with jitter */
  backOff?: BackOff | undefined;
}

const SPIN_OPTION_KEYS = optionKeys<SpinLockOptions>({
  leaseMs: true,
  watchdogTimeoutMs: true,
  waitMs: true,
  owner: true,
  reentrant: true,
  fencing: true,
  signal: true,
  backOff: true,
});

/**
 * Redisson's spin lock as a cold Observable of a `Lease`: the reentrant lock's hash (so a spin waiter and a
 * `lock$` holder exclude each other), acquired by polling with back-off and no pub/sub at all, for services that
 * hold very many locks or run where pub/sub is unavailable or costly. It does not queue: while it waits, a
 * `lock$` waiter may be served first. Held, renewed, released and lost as `lock$`.
 */
export function spinLock$(core: ClientCore, name: string, options: SpinLockOptions = {}): Observable<Lease> {
  return defer(() => {
    const where = callSite('spinLock$', name);
    checkLockOptions(where, name, options, SPIN_OPTION_KEYS, core.settings);
    const backOff = backOffOf(options.backOff, where);
    return abortable(hold$(new SpinAcquisition(core, name, options, backOff())), options.signal);
  });
}

/** One spin lock acquisition: one attempt after another, each a single try, the pauses from its back-off. */
class SpinAcquisition implements LockSpec<number> {
  readonly kind = 'spinLock';
  readonly channel = undefined;
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly waitMs: number | undefined;
  readonly #keys: LockKeys;
  readonly #field: string;
  readonly #holdId: string | undefined;
  readonly #options: SpinLockOptions;
  readonly #nextPause: BackOffPolicy;
  readonly #args: (string | number)[];
  readonly #acquireKeys: readonly string[];

  constructor(core: ClientCore, name: string, options: SpinLockOptions, nextPause: BackOffPolicy) {
    const keys = lockKeys(core.keyPrefix + name);
    const { owner, shared } = chooseOwner(core, keys.lock, options.owner);
    this.core = core;
    this.name = name;
    this.owner = owner;
    this.waitMs = options.waitMs;
    this.#keys = keys;
    this.#field = `${core.clientId}:${owner}`;
    this.#holdId = shared ? `${core.clientId}:${core.newOwner()}` : undefined;
    this.#options = options;
    this.#nextPause = nextPause;
    const ttl = options.leaseMs ?? options.watchdogTimeoutMs ?? core.settings.watchdogTimeoutMs;
    const flags = `${options.fencing === true ? 'f' : ''}${options.reentrant === false ? 'n' : ''}`;
    // A single try that joins no queue (hand-off window 0): spinning waiters do not queue.
    this.#args = [ttl, this.#field, flags === '' ? 'try' : `try+${flags}`, 0];
    if (this.#holdId !== undefined) this.#args.push(this.#holdId);
    const optional = [...(this.#holdId === undefined ? [] : [keys.holds]), ...(options.fencing === true ? [keys.token] : [])];
    this.#acquireKeys = [...keys.acquireKeys, ...optional];
  }

  attempt(): Observable<AttemptReply<number>> {
    return this.core.connection
      .run(lockAcquireScript, this.#acquireKeys, this.#args)
      .pipe(map((reply) => (reply.granted ? reply : { granted: false, retryInMs: this.#nextPause() })));
  }

  compensate(settled?: (known: boolean) => void): void {
    fire(this.core, lockReleaseCall(this.core, this.#keys, this.#field, this.#holdId), settled);
  }

  hold(token: number): HoldSpec {
    const { leaseMs, watchdogTimeoutMs, fencing } = this.#options;
    const expiry: Expiry =
      leaseMs === undefined
        ? { type: 'watchdog', ttlMs: watchdogTimeoutMs, renewKind: LOCK_RENEW_KIND, key: this.#keys.lock, field: this.#field }
        : { type: 'fixed', ms: leaseMs };
    return new LockHold(this.core, this.name, this.owner, fencing === true ? token : undefined, expiry, this.#field, this.#holdId, 'spinLock');
  }
}
