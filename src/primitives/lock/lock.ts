import { defer, type Observable } from 'rxjs';
import { driftFor, type ClientCore, type EngineSettings } from '../../engine/ClientCore.js';
import type { AcquireSpec, AttemptReply, EndListener, HandOffLine } from '../../engine/acquisition.js';
import type { Expiry, HeldLease, HoldSpec, ReleaseReply } from '../../engine/HeldLease.js';
import { hold$, type HoldFactory } from '../../engine/hold.js';
import { fire, type Command } from '../../engine/send.js';
import type { RenewKind, RenewTarget } from '../../engine/Renewer.js';
import type { WakePolicy } from '../../engine/WakeHub.js';
import type { ScriptCall } from '../../store/Store.js';
import type { Lease } from '../../engine/Lease.js';
import { assertDuration, assertName, assertOptions, assertOwner, assertSignal } from '../../util/validate.js';
import { contextOwner } from '../reentrancy.js';
import { abortable } from '../abortable.js';
import { lockAcquireScript } from './acquireScript.js';
import { handOffChannel, lockKeys, type LockKeys } from './lockKeys.js';
import { handOffPolicy, listHandOffTarget, unlistHandOffTarget, type HandOffTarget } from './handOffs.js';
import { waiterMember } from './waiterMember.js';
import { HandOffClock } from '../handOffClock.js';
import { lockLeaseReleaseScript, lockLeaveScript } from './releaseScript.js';
import type { AttemptMode } from './acquireScript.js';
import { lockRenewKind } from './renewScript.js';
import { callSite } from '../../util/describeValue.js';

/** Options of `lock$`, `withLock$`, `withLock` and `acquire`. */
export interface LockOptions {
  /**
   * A fixed lease in ms: the key expires this long after the grant and is not renewed, as Redisson's
   * `lock(leaseTime)`. The stream errors with `LockLostError` (`expired`) just before it runs out.
   * @default undefined: the watchdog keeps the lock for as long as the stream is subscribed
   */
  leaseMs?: number | undefined;
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
   * Give every grant a fencing token (`lease.token`) that grows with every grant of this name, across
   * clients and restarts, from Redisson's `redisson_lock_token:{name}` counter.
   * @default false
   */
  fencing?: boolean | undefined;
  /** Cancels the wait, or ends the hold, when it aborts; the stream errors with `signal.reason`. */
  signal?: AbortSignal | undefined;
}

export const LOCK_OPTION_KEYS: readonly string[] = ['leaseMs', 'waitMs', 'owner', 'fencing', 'signal'];

/**
 * Checks lock options; every problem is a TypeError or RangeError naming the option and the value. With the
 * client's `settings`, a `leaseMs` is also checked against its drift allowance.
 */
export function checkLockOptions(where: string, name: unknown, options: LockOptions | undefined, known = LOCK_OPTION_KEYS, settings?: EngineSettings): void {
  assertName(name, where);
  assertOptions(options, known, where);
  if (options === undefined) return;
  if (options.leaseMs !== undefined) {
    assertDuration(options.leaseMs, 'leaseMs', where, { min: 10 });
    if (settings !== undefined) assertLeaseOverDrift(options.leaseMs, settings, where);
  }
  if (options.waitMs !== undefined) assertDuration(options.waitMs, 'waitMs', where, { min: 0 });
  if (options.owner !== undefined) assertOwner(options.owner, where);
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

/**
 * Refuses a fixed lease whose drift allowance (`driftFactor`, `driftMs`) is half of it or more, as
 * `createLockClient` refuses such a `watchdogTimeoutMs`: the lease would run out, locally, before the work
 * could use it, after the lock was taken in Redis for nothing.
 */
export function assertLeaseOverDrift(leaseMs: number | undefined, settings: EngineSettings, where: string): void {
  if (leaseMs === undefined) return;
  const drift = driftFor(settings, leaseMs);
  if (drift >= leaseMs / 2) {
    throw new RangeError(
      `rxlock: ${where}: option "leaseMs" (${String(leaseMs)}) is too short for the client's drift allowance: "driftMs" (${String(settings.driftMs)}) and ` +
        `"driftFactor" (${String(settings.driftFactor)}) allow ${String(drift)} ms of drift on a ${String(leaseMs)} ms lease; it must be under half of it, or the lease could not be trusted`,
    );
  }
}

/** How the owner of a hold was chosen: shared owners may re-enter, so each hold needs its own id. */
export interface OwnerChoice {
  readonly owner: string;
  readonly shared: boolean;
}

export function chooseOwner(core: ClientCore, fullName: string, explicit: string | undefined): OwnerChoice {
  if (explicit !== undefined) return { owner: explicit, shared: true };
  const inherited = contextOwner(core, fullName);
  if (inherited !== undefined) return { owner: inherited, shared: true };
  return { owner: core.newOwner(), shared: false };
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

/** Waiters keep the unlock channel subscribed this long after their wait, so a loop needs no new SUBSCRIBE. */
const CHANNEL_GRACE_MS = 5_000;

/**
 * Plans one hold of a lock, at subscription time. `chosen` overrides the choice of owner (`withLock$`
 * passes a shared one so that nested holds can re-enter).
 */
export function planLockHold(core: ClientCore, name: string, options: LockOptions = {}, chosen?: OwnerChoice): LockHoldPlan {
  return new LockAcquireSpec(core, name, options, chosen);
}

/** Everything the engine needs to hold one lock: how to acquire it and how a grant becomes a lease. */
export type LockHoldPlan = AcquireSpec<number> & HoldFactory<number>;

/**
 * One hold's acquisition, as the engine asks for it: a class rather than closures, as holds are the hot path.
 *
 * While it waits it listens on Redisson's channel (Redisson's unlocks, reservations) and on its client's
 * hand-off channel, where a release that hands it the lock directly says so (`HandOffClock`); from the
 * moment it may be queued until its subscription ends it is listed for those messages (`handOffs`).
 */
class LockAcquireSpec extends HandOffClock implements AcquireSpec<number>, HoldFactory<number>, HandOffTarget, EndListener {
  readonly kind = 'lock';
  readonly policy = UNLOCK_WAKES;
  readonly graceMs = CHANNEL_GRACE_MS;
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
  /**
   * Whether releases may hand the lock to this acquisition directly: not with replica acknowledgements (a
   * grant must come from its own acknowledged attempt), nor on Redlock (which queues nobody), nor where a
   * release cannot see that its client listens (a cluster with classic pub/sub).
   */
  readonly #direct: boolean;
  readonly #leaseMs: number | undefined;
  readonly #acquireKeys: readonly string[];
  #member: string | undefined;
  #handOffChannel: string | undefined;
  #listed = false;

  constructor(core: ClientCore, name: string, options: LockOptions, chosen: OwnerChoice | undefined) {
    super();
    const { leaseMs, waitMs, fencing = false } = options;
    const keys = lockKeys(core.keyPrefix + name);
    const { owner, shared } = chosen ?? chooseOwner(core, keys.lock, options.owner);
    const field = `${core.clientId}:${owner}`;
    const holdId = shared ? `${core.clientId}:${core.newOwner()}` : undefined;
    this.core = core;
    this.name = name;
    this.owner = owner;
    this.waitMs = waitMs;
    this.channel = keys.channel;
    this.#keys = keys;
    this.#field = field;
    this.#holdId = holdId;
    this.#ttl = leaseMs ?? core.settings.watchdogTimeoutMs;
    this.#fencing = fencing;
    this.#direct = core.settings.replicas === 0 && core.settings.handoffMs > 0 && core.connection.subscribersVisible === true;
    this.#leaseMs = leaseMs;
    // Optional keys and arguments go last and are left out when unused (see the scripts).
    this.#acquireKeys =
      holdId === undefined && !fencing
        ? keys.acquireKeys
        : [...keys.acquireKeys, ...(holdId === undefined ? [] : [keys.holds]), ...(fencing ? [keys.token] : [])];
  }

  /** How this acquisition is listed among the waiters (see `waiterMember`). */
  get member(): string {
    return (this.#member ??= waiterMember({ field: this.#field, leaseMs: this.#ttl, fencing: this.#fencing, direct: this.#direct, holdId: this.#holdId }));
  }

  get handOff(): HandOffLine | undefined {
    if (!this.#direct) return undefined;
    return { channel: this.#handOffChannelName(), policy: handOffPolicy(this.core, this.#keys.lock), id: this.member };
  }

  /** The message was the reply: granting at once, inside its delivery, saves a round trip per hand-off. */
  handedGrant(now: number): AttemptReply<number> | undefined {
    if (!this.#listed) return undefined;
    const handed = this.takeGrant(now, this.core.settings.driftFactor);
    return handed === undefined ? undefined : { granted: true, grant: handed.token, sentAt: handed.sentAt };
  }

  attempt(asWaiter: boolean, now: number): Command<AttemptReply<number>> {
    const { core } = this;
    if (!this.#listed && this.#direct && this.waitMs !== 0 && core.hub.channelCount > 0 && core.hub.listening(this.#handOffChannelName())) {
      // This client listens already, so a hand-off may come before this attempt's reply: be there for it.
      this.#list();
    }
    this.sending(now);
    const mode = ATTEMPT_MODES[attemptMode(asWaiter, this.waitMs)][(this.#fencing ? 1 : 0) + (this.#direct ? 2 : 0)];
    const args = [this.#ttl, this.#field, mode ?? '', core.settings.handoffMs];
    if (this.#holdId !== undefined) args.push(this.#holdId);
    return { script: lockAcquireScript, keys: this.#acquireKeys, args };
  }

  override queued(serverUs: number, sentAt: number): void {
    super.queued(serverUs, sentAt);
    if (this.#direct && !this.#listed) this.#list();
  }

  compensate(settled?: (known: boolean) => void): void {
    this.forgetHandOffs();
    fire(this.core, lockReleaseCall(this.core, this.#keys, this.#field, this.#holdId), settled);
  }

  abandon(): void {
    fire(this.core, {
      script: lockLeaveScript,
      keys: this.#keys.releaseKeys,
      args: [this.member, this.core.settings.handoffMs, this.core.connection.publishCommand],
    });
  }

  endListener(): EndListener | undefined {
    return this.#listed ? this : undefined;
  }

  /** The subscription ended: hand-offs to it are given back from now on. */
  ended(): void {
    if (!this.#listed) return;
    this.#listed = false;
    unlistHandOffTarget(this.core, this.#keys.lock, this.member, this);
  }

  toHold(token: number): HoldSpec {
    return new LockHold(this.core, this.name, this.owner, this.#fencing ? token : undefined, this.#leaseMs, this.#field, this.#holdId);
  }

  #list(): void {
    this.#listed = true;
    listHandOffTarget(this.core, this.#keys.lock, this.member, this);
  }

  #handOffChannelName(): string {
    return (this.#handOffChannel ??= handOffChannel(this.#keys, this.core.clientId));
  }
}

/** The hold behind `lock$`: a cold Observable of the `HeldLease`. */
export function lockHold$(core: ClientCore, name: string, options: LockOptions = {}, chosen?: OwnerChoice): Observable<HeldLease> {
  return defer(() => {
    const plan = planLockHold(core, name, options, chosen);
    return abortable(hold$(plan, plan), options.signal);
  });
}

const LOCK_RENEW_KIND = lockRenewKind((lockKey) => lockKeys(lockKey).holds);

/** The acquire script's mode argument, by mode and then by flags: none, fencing, direct hand-offs, both (no string built per attempt). */
const ATTEMPT_MODES: Readonly<Record<AttemptMode, readonly string[]>> = {
  try: ['try', 'try+f', 'try+d', 'try+fd'],
  new: ['new', 'new+f', 'new+d', 'new+fd'],
  wait: ['wait', 'wait+f', 'wait+d', 'wait+fd'],
};

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

/** The owner-checked release of one hold. */
function lockReleaseCall(core: ClientCore, keys: LockKeys, field: string, holdId: string | undefined): ScriptCall<ReleaseReply> {
  const { handoffMs } = core.settings;
  const publish = core.connection.publishCommand;
  const args = holdId === undefined ? [field, handoffMs, publish] : [field, handoffMs, publish, holdId];
  return { script: lockLeaseReleaseScript, keys: keys.releaseKeys, args };
}

/**
 * A granted `lock$` hold: only what renewing and releasing it needs. Its release command is built when it is
 * sent, from the (cached) keys of the name, so that a held lock keeps no key strings but its own name. Under
 * the watchdog it is its own `Expiry` (no object per hold).
 */
class LockHold implements HoldSpec, RenewTarget {
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly token: number | undefined;
  readonly expiry: Expiry;
  readonly field: string;
  readonly #holdId: string | undefined;

  constructor(
    core: ClientCore,
    name: string,
    owner: string,
    token: number | undefined,
    leaseMs: number | undefined,
    field: string,
    holdId: string | undefined,
  ) {
    this.core = core;
    this.name = name;
    this.owner = owner;
    this.token = token;
    this.expiry = leaseMs === undefined ? this : { type: 'fixed', ms: leaseMs };
    this.field = field;
    this.#holdId = holdId;
  }

  get kind(): 'lock' {
    return 'lock';
  }

  get type(): 'watchdog' {
    return 'watchdog';
  }

  get renewKind(): RenewKind {
    return LOCK_RENEW_KIND;
  }

  get key(): string {
    return this.core.keyPrefix + this.name;
  }

  release(): ScriptCall<ReleaseReply> {
    return lockReleaseCall(this.core, lockKeys(this.key), this.field, this.#holdId);
  }
}
