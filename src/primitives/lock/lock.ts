import { defer, type Observable } from 'rxjs';
import { confirmWindowMs, driftFor, type ClientCore, type EngineSettings } from '../../engine/ClientCore.js';
import type { AttemptReply, HandOffSpec, LockSpec } from '../../engine/acquisition.js';
import type { Expiry, Hold, HoldSpec } from '../../engine/Hold.js';
import { hold$ } from '../../engine/holdLifecycle.js';
import { fire, type Command } from '../../engine/send.js';
import { WAIT_CHANNEL_GRACE_MS, type WakePolicy } from '../../engine/WakeHub.js';
import type { Lease } from '../../engine/Lease.js';
import { assertDuration, assertName, assertOptions, assertOwner, assertSignal } from '../../util/validate.js';
import { contextOwner } from '../reentrancy.js';
import { abortable } from '../abortable.js';
import { lockAcquireScript, type AttemptMode } from './acquireScript.js';
import { handOffChannel, lockKeys, type LockKeys } from './lockKeys.js';
import { HAND_OFF_WAKES } from '../../engine/handOff/handOffMessage.js';
import { waiterMember } from './waiterMember.js';
import { leaveCall, LOCK_RENEW_KIND, LockHold, lockReleaseCall } from './lockHold.js';
import { callSite } from '../../util/describeValue.js';
import { optionKeys } from '../../util/optionKeys.js';

/** Options of `lock$`, `withLock$`, `withLock` and `acquire`. */
export interface LockOptions {
  /**
   * A fixed lease in ms: the key expires this long after the grant and is not renewed, as Redisson's
   * `lock(leaseTime)`. The stream errors with `LockLostError` (`expired`) just before it runs out.
   * @default undefined: the watchdog keeps the lock for as long as the stream is subscribed
   */
  leaseMs?: number | undefined;
  /**
   * The watchdog timeout of this hold: its key lasts this long between renewals (every third of it), which is
   * how long the lock stays with a holder that crashed. Not with `leaseMs`.
   * @default the client's `watchdogTimeoutMs` (30 s)
   */
  watchdogTimeoutMs?: number | undefined;
  /**
   * How long to wait for the lock before erroring with `LockTimeoutError`. `0` tries once.
   * @default undefined: wait as long as it takes
   */
  waitMs?: number | undefined;
  /**
   * Hold as this owner. Holds with the same owner re-enter (the hold count goes up) instead of waiting.
   * @default a new owner for every subscription (or the enclosing `withLock` callback's owner)
   */
  owner?: string | undefined;
  /**
   * `false` for Redisson 4.4's non-reentrant lock (and fair lock): the same layout, but an owner that holds the
   * lock and asks for it again (with `owner`, or nested in `withLock`) fails at once with `LockReentryError`
   * instead of counting a second hold.
   * @default true
   */
  reentrant?: boolean | undefined;
  /**
   * Give every grant a fencing token (`lease.token`) that grows with every grant of this name, across
   * clients and restarts, from Redisson's `redisson_lock_token:{name}` counter.
   * @default false
   */
  fencing?: boolean | undefined;
  /**
   * Cancels the wait, or ends the hold, when it aborts; the stream errors with `signal.reason`.
   * @default undefined: only unsubscribing cancels
   */
  signal?: AbortSignal | undefined;
}

export const LOCK_OPTION_KEYS = optionKeys<LockOptions>({
  leaseMs: true,
  watchdogTimeoutMs: true,
  waitMs: true,
  owner: true,
  reentrant: true,
  fencing: true,
  signal: true,
});

/**
 * Checks lock options; every problem is a TypeError or RangeError naming the option and the value. With the
 * client's `settings`, a `leaseMs` is also checked against its drift allowance.
 */
export function checkLockOptions(
  where: string,
  name: unknown,
  options: LockOptions | undefined,
  known: readonly string[] = LOCK_OPTION_KEYS,
  settings?: EngineSettings,
): void {
  assertName(name, where);
  assertOptions(options, known, where);
  if (options === undefined) return;
  if (options.leaseMs !== undefined) {
    assertDuration(options.leaseMs, 'leaseMs', where, { min: 10 });
    if (settings !== undefined) assertLeaseOverDrift(options.leaseMs, settings, where);
  }
  checkWatchdogTimeout(options, where, settings);
  if (options.waitMs !== undefined) assertDuration(options.waitMs, 'waitMs', where, { min: 0 });
  if (options.owner !== undefined) assertOwner(options.owner, where);
  if (options.reentrant !== undefined && typeof options.reentrant !== 'boolean') {
    throw new TypeError(`rxlock: ${where}: option "reentrant" must be a boolean, got ${typeof options.reentrant}`);
  }
  if (options.fencing !== undefined && typeof options.fencing !== 'boolean') {
    throw new TypeError(`rxlock: ${where}: option "fencing" must be a boolean, got ${typeof options.fencing}`);
  }
  assertSignal(options.signal, where);
}

/**
 * `checkLockOptions` for the calls made in loops (`lock$`, `acquire`, `fairLock$`): naming the call site
 * costs a JSON.stringify of the name, so it is done only to word the error when a check failed.
 */
export function checkLockCall(fn: string, name: unknown, options: LockOptions | undefined, settings?: EngineSettings): void {
  try {
    checkLockOptions(fn, name, options, LOCK_OPTION_KEYS, settings);
  } catch (error) {
    checkLockOptions(callSite(fn, name), name, options, LOCK_OPTION_KEYS, settings);
    throw error;
  }
}

/** Checks a per-call `watchdogTimeoutMs` as `createLockClient` checks the client's, and refuses it beside `leaseMs`. */
export function checkWatchdogTimeout(
  options: { readonly leaseMs?: number | undefined; readonly watchdogTimeoutMs?: number | undefined },
  where: string,
  settings?: EngineSettings,
): void {
  const { watchdogTimeoutMs } = options;
  if (watchdogTimeoutMs === undefined) return;
  assertDuration(watchdogTimeoutMs, 'watchdogTimeoutMs', where, { min: 30 });
  if (options.leaseMs !== undefined) {
    throw new TypeError(`rxlock: ${where}: options "leaseMs" and "watchdogTimeoutMs" exclude each other: a fixed lease is not renewed`);
  }
  if (settings !== undefined) assertLeaseOverDrift(watchdogTimeoutMs, settings, where, 'watchdogTimeoutMs');
}

/**
 * Refuses a fixed lease whose drift allowance (`driftFactor`, `driftMs`) is half of it or more, as
 * `createLockClient` refuses such a `watchdogTimeoutMs`: the lease would run out, locally, before the work
 * could use it, after the lock was taken in Redis for nothing.
 */
export function assertLeaseOverDrift(leaseMs: number | undefined, settings: EngineSettings, where: string, option = 'leaseMs'): void {
  if (leaseMs === undefined) return;
  const drift = driftFor(settings, leaseMs);
  if (drift >= leaseMs / 2) {
    throw new RangeError(
      `rxlock: ${where}: option "${option}" (${String(leaseMs)}) is too short for the client's drift allowance: "driftMs" (${String(settings.driftMs)}) and ` +
        `"driftFactor" (${String(settings.driftFactor)}) allow ${String(drift)} ms of drift on a ${String(leaseMs)} ms lease; it must be under half of it, or the lease could not be trusted`,
    );
  }
}

/** How the owner of a hold was chosen: shared owners may re-enter, so each hold needs its own id. */
export interface OwnerChoice {
  readonly owner: string;
  readonly shared: boolean;
}

/**
 * Who holds: the explicit owner, else the enclosing `withLock`'s owner of this name (both may re-enter, so each
 * hold needs its own id), else `fresh` (a new owner per subscription by default, or a multi-lock's common one).
 */
export function chooseOwner(core: ClientCore, fullName: string, explicit: string | undefined, fresh = (): string => core.newOwner()): OwnerChoice {
  if (explicit !== undefined) return { owner: explicit, shared: true };
  const inherited = contextOwner(core, fullName);
  if (inherited !== undefined) return { owner: inherited, shared: true };
  return { owner: fresh(), shared: false };
}

/**
 * Redisson's `0` (an unlock with no rxlock waiter queued, or any Redisson unlock) wakes one waiter of each
 * client; a ticket wakes the one rxlock waiter the unlock reserved the lock for, wherever it waits.
 */
const UNLOCK_WAKES: WakePolicy = (message) => {
  if (message === '0') return { wake: 'one' };
  return TICKET.test(message) ? { wake: 'id', id: message } : { wake: 'none' };
};

const TICKET = /^[1-9]\d+$/;

/**
 * Whether releases may hand a lock straight to this client's waiters: not with replica acknowledgements (a
 * grant must come from its own acknowledged attempt), nor where a release cannot see that the client listens
 * (a cluster with classic pub/sub), nor for a fixed lease longer than the confirmation window (a handed lock
 * lasts that window until its holder confirms it, and only the watchdog confirms).
 */
export function takesHandOffs(core: ClientCore, leaseMs: number | undefined): boolean {
  const { settings } = core;
  return (
    settings.replicas === 0 &&
    settings.handoffMs > 0 &&
    core.connection.subscribersVisible === true &&
    (leaseMs === undefined || leaseMs <= confirmWindowMs(settings))
  );
}

/**
 * How to acquire one hold of a lock, planned at subscription time. `chosen` overrides the choice of owner
 * (`withLock$` passes a shared one so that nested holds can re-enter).
 */
export function planLockHold(core: ClientCore, name: string, options: LockOptions = {}, chosen?: OwnerChoice): LockSpec<number> {
  return new LockAcquisition(core, name, options, chosen);
}

/**
 * One hold's acquisition, as the engine asks for it. While it waits it listens on Redisson's channel
 * (Redisson's unlocks, reservations) and on its client's hand-off channel, where a release that hands it
 * the lock directly says so. A class: one is made per acquisition, on the hot path.
 */
class LockAcquisition implements LockSpec<number> {
  readonly kind = 'lock';
  readonly policy = UNLOCK_WAKES;
  readonly graceMs = WAIT_CHANNEL_GRACE_MS;
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly waitMs: number | undefined;
  readonly channel: string;
  readonly #keys: LockKeys;
  readonly #field: string;
  readonly #holdId: string | undefined;
  readonly #ttl: number;
  readonly #fencing: boolean;
  readonly #direct: boolean;
  readonly #reentrant: boolean;
  readonly #leaseMs: number | undefined;
  readonly #watchdogMs: number | undefined;
  readonly #acquireKeys: readonly string[];
  #handOff: HandOffSpec | undefined;

  constructor(core: ClientCore, name: string, options: LockOptions, chosen: OwnerChoice | undefined) {
    const { leaseMs, waitMs, fencing = false } = options;
    const keys = lockKeys(core.keyPrefix + name);
    const { owner, shared } = chosen ?? chooseOwner(core, keys.lock, options.owner);
    this.core = core;
    this.name = name;
    this.owner = owner;
    this.waitMs = waitMs;
    this.channel = keys.channel;
    this.#keys = keys;
    this.#field = `${core.clientId}:${owner}`;
    this.#holdId = shared ? `${core.clientId}:${core.newOwner()}` : undefined;
    this.#ttl = leaseMs ?? options.watchdogTimeoutMs ?? core.settings.watchdogTimeoutMs;
    this.#watchdogMs = options.watchdogTimeoutMs;
    this.#fencing = fencing;
    this.#direct = takesHandOffs(core, leaseMs);
    this.#reentrant = options.reentrant ?? true;
    this.#leaseMs = leaseMs;
    // Optional keys and arguments go last and are left out when unused (see the scripts).
    const holdId = this.#holdId;
    this.#acquireKeys =
      holdId === undefined && !fencing
        ? keys.acquireKeys
        : [...keys.acquireKeys, ...(holdId === undefined ? [] : [keys.holds]), ...(fencing ? [keys.token] : [])];
  }

  /** Built when the engine first asks (an uncontended acquisition does not). */
  get handOff(): HandOffSpec | undefined {
    if (!this.#direct) return undefined;
    if (this.#handOff === undefined) {
      const { core } = this;
      const keys = this.#keys;
      this.#handOff = {
        channel: handOffChannel(keys, core.clientId),
        member: waiterMember({ field: this.#field, leaseMs: this.#ttl, fencing: this.#fencing, direct: true, holdId: this.#holdId }),
        policy: HAND_OFF_WAKES,
        giveBack: (member) => fire(core, leaveCall(core, keys, member)),
      };
    }
    return this.#handOff;
  }

  attempt(asWaiter: boolean): Command<AttemptReply<number>> {
    const mode = ATTEMPT_MODES[attemptMode(asWaiter, this.waitMs)][(this.#fencing ? 1 : 0) + (this.#direct ? 2 : 0) + (this.#reentrant ? 0 : 4)];
    const args = [this.#ttl, this.#field, mode ?? '', this.core.settings.handoffMs];
    if (this.#holdId !== undefined) args.push(this.#holdId);
    return { script: lockAcquireScript, keys: this.#acquireKeys, args };
  }

  compensate(settled?: (known: boolean) => void): void {
    fire(this.core, lockReleaseCall(this.core, this.#keys, this.#field, this.#holdId), settled);
  }

  abandon(): void {
    fire(this.core, leaveCall(this.core, this.#keys, this.#member()));
  }

  hold(token: number): HoldSpec {
    const expiry: Expiry =
      this.#leaseMs === undefined
        ? { type: 'watchdog', ttlMs: this.#watchdogMs, renewKind: LOCK_RENEW_KIND, key: this.#keys.lock, field: this.#field }
        : { type: 'fixed', ms: this.#leaseMs };
    return new LockHold(this.core, this.name, this.owner, this.#fencing ? token : undefined, expiry, this.#field, this.#holdId);
  }

  /** How this acquisition is listed among the lock's waiters (see `waiterMember`). */
  #member(): string {
    return this.handOff?.member ?? waiterMember({ field: this.#field, leaseMs: this.#ttl, fencing: this.#fencing, direct: false, holdId: this.#holdId });
  }
}

/** The hold behind `lock$`: a cold Observable of the `Hold`. */
export function lockHold$(core: ClientCore, name: string, options: LockOptions = {}, chosen?: OwnerChoice): Observable<Hold> {
  return defer(() => abortable(hold$(planLockHold(core, name, options, chosen)), options.signal));
}

/** The acquire script's mode argument, by mode and then by flags (bit 1 fencing, 2 direct hand-offs, 4 non-reentrant): no string built per attempt. */
const ATTEMPT_MODES: Readonly<Record<AttemptMode, readonly string[]>> = { try: modesOf('try'), new: modesOf('new'), wait: modesOf('wait') };

function modesOf(mode: AttemptMode): string[] {
  return Array.from({ length: 8 }, (_, bits) => {
    const flags = `${bits & 1 ? 'f' : ''}${bits & 2 ? 'd' : ''}${bits & 4 ? 'n' : ''}`;
    return flags === '' ? mode : `${mode}+${flags}`;
  });
}

function attemptMode(asWaiter: boolean, waitMs: number | undefined): AttemptMode {
  if (asWaiter) return 'wait';
  return waitMs === 0 ? 'try' : 'new';
}

/** `lock$` as the client exposes it: validates, then holds. */
export function lock$(core: ClientCore, name: string, options?: LockOptions): Observable<Lease> {
  return defer(() => {
    checkLockCall('lock$', name, options, core.settings);
    return lockHold$(core, name, options);
  });
}
