import { Observable } from 'rxjs';
import type { AttemptReply, HandOffSpec, LockSpec } from '../../engine/acquisition.js';
import type { ClientCore } from '../../engine/ClientCore.js';
import { HAND_OFF_WAKES } from '../../engine/handOff/handOffMessage.js';
import type { Expiry, Hold, HoldSpec, ReleaseReply } from '../../engine/Hold.js';
import { startHold } from '../../engine/holdLifecycle.js';
import type { Lease } from '../../engine/Lease.js';
import { fire, type Command } from '../../engine/send.js';
import { WAIT_CHANNEL_GRACE_MS, type WakePolicy } from '../../engine/WakeHub.js';
import type { Script } from '../../store/Script.js';
import type { ScriptCall } from '../../store/Store.js';
import { abortable } from '../abortable.js';
import { checkLockCall, takesHandOffs, type LockOptions } from '../lock/lock.js';
import { lockKeys } from '../lock/lockKeys.js';
import { lockRenewKind } from '../lock/renewScript.js';
import { contextOwner } from '../reentrancy.js';
import { fairLockAcquireScript } from './acquireScript.js';
import { fairLockKeys } from './fairLockKeys.js';
import { FairOwner } from './fairOwner.js';
import { fairLockLeaveScript } from './leaveScript.js';
import { FAIR_OWNERS } from './ownerPool.js';
import { fairLockReleaseScript } from './releaseScript.js';

/** Options of `fairLock$`: those of `lock$`. */
export type FairLockOptions = LockOptions;

/** Fair holds renew like plain ones: the lock hash and the hold ids. */
const FAIR_RENEW_KIND = lockRenewKind((lockKey) => lockKeys(lockKey).holds);

/**
 * On an owner's channel, Redisson's `0` means "the lock is yours to take" to each of the owner's acquisitions;
 * a hand-off message goes to the acquisition it names.
 */
const FAIR_WAKES: WakePolicy = (message) => (message === '0' ? WAKE_ALL : HAND_OFF_WAKES(message));
const WAKE_ALL = { wake: 'all' } as const;

/**
 * The hold behind `fairLock$`: granted in the order of the first attempts, across all clients (Redisson's
 * RFairLock). Each waiter has a place in the queue and a channel of its own; a release hands the lock to the
 * head only. Unsubscribing while waiting leaves the queue at once.
 */
export function fairLockHold$(core: ClientCore, name: string, options: FairLockOptions = {}): Observable<Hold> {
  const held$ = new Observable<Hold>((subscriber) => startHold(new FairAcquisition(core, name, options), subscriber));
  return abortable(held$, options.signal);
}

/** `fairLock$` as the client exposes it: validates, then holds. */
export function fairLock$(core: ClientCore, name: string, options?: FairLockOptions): Observable<Lease> {
  return new Observable<Hold>((subscriber) => {
    try {
      checkLockCall('fairLock$', name, options, core.settings);
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    return fairLockHold$(core, name, options).subscribe(subscriber);
  });
}

/**
 * One subscription's acquisition of a fair lock, as the engine asks for it. Its owner comes from the
 * client's pool unless one was named (or inherited from an enclosing `withLock`); every acquisition has a
 * wait id of its own, and a hold id from it. A class: one is made per acquisition, on the hot path.
 */
class FairAcquisition implements LockSpec<number> {
  readonly kind = 'fairLock';
  readonly graceMs = WAIT_CHANNEL_GRACE_MS;
  readonly policy = FAIR_WAKES;
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly waitMs: number | undefined;
  readonly channel: string;
  /** Until granted; a grant that is not trusted keeps its acquisition until the subscription ends, and needs none of it. */
  handOff: HandOffSpec | undefined;
  readonly #fairOwner: FairOwner;
  /** Whether the owner came from the pool (and goes back there at the end). */
  readonly #pooled: boolean;
  readonly #leaseMs: number | undefined;
  readonly #watchdogMs: number | undefined;
  readonly #fencing: boolean;
  readonly #reentrant: boolean;
  readonly #waitId: string;
  readonly #holdId: string;
  #granted = false;
  /** An attempt may have put this acquisition in the queue, and no leave was sent after it. */
  #mayBeQueued = false;

  constructor(core: ClientCore, name: string, options: FairLockOptions) {
    const { leaseMs, waitMs, fencing = false } = options;
    const lockKey = fairLockKeys(core.keyPrefix + name).lock;
    const named = options.owner ?? contextOwner(core, lockKey);
    const pooled = named === undefined ? core.local(FAIR_OWNERS).take(lockKey) : undefined;
    const fairOwner = pooled ?? new FairOwner(core, lockKey, named ?? core.newOwner());
    this.core = core;
    this.name = name;
    this.owner = fairOwner.owner;
    this.waitMs = waitMs;
    this.channel = fairOwner.channel;
    this.#fairOwner = fairOwner;
    this.#pooled = named === undefined;
    this.#leaseMs = leaseMs;
    this.#watchdogMs = options.watchdogTimeoutMs;
    this.#fencing = fencing;
    this.#reentrant = options.reentrant ?? true;
    this.#waitId = core.newOwner();
    this.#holdId = `${core.clientId}:${this.#waitId}`;
    this.handOff = takesHandOffs(core, leaseMs)
      ? { channel: this.channel, member: `${this.#waitId} ${this.#holdId}`, policy: FAIR_WAKES, giveBack: (member) => this.#giveBack(member) }
      : undefined;
  }

  attempt(): Command<AttemptReply<number>> {
    if (this.waitMs !== 0) this.#mayBeQueued = true;
    return this.#call(fairLockAcquireScript, this.waitMs !== 0);
  }

  /** A grant nobody will use (or an attempt of unknown outcome) is given back; the place in the queue is kept while the wait goes on. */
  compensate(settled?: (known: boolean) => void): void {
    fire(this.core, this.#call(fairLockLeaveScript, this.waitMs !== 0), settled);
  }

  /** Giving up leaves the queue. */
  abandon(): void {
    this.#mayBeQueued = false;
    fire(this.core, this.#call(fairLockLeaveScript, false));
  }

  hold(token: number): HoldSpec {
    this.#granted = true;
    this.handOff = undefined;
    const renewed = this.#leaseMs === undefined;
    return new FairHold(this.core, this.name, this.#fairOwner, this.#pooled, this.#fencing ? token : undefined, this.#ttl(), renewed, this.#holdId);
  }

  /** The subscription ended before a grant: leave the queue if an attempt may still have a place there, and give the owner back. */
  ended(): void {
    // The engine leaves the queue itself once it saw the caller queued; this covers a first attempt still in flight.
    if (!this.#granted && this.#mayBeQueued) this.abandon();
    if (this.#pooled) this.core.local(FAIR_OWNERS).give(this.#fairOwner);
  }

  /** A hand-off reached an acquisition of this owner that is over (its leave was lost): release it, which hands the lock on. */
  #giveBack(member: string): void {
    const holdId = member.slice(member.indexOf(' ') + 1);
    fire(
      this.core,
      this.#fairOwner.call(fairLockLeaveScript, { leaseMs: 0, holdId, waitId: '', fencing: false, enqueue: true, direct: takesHandOffs(this.core, undefined) }),
    );
  }

  /** The key's TTL: the fixed lease, or the watchdog timeout. */
  #ttl(): number {
    return this.#leaseMs ?? this.#watchdogMs ?? this.core.settings.watchdogTimeoutMs;
  }

  /** A call of one of the fair lock's scripts as this acquisition; `enqueue`: take a place in the queue if refused. */
  #call<R>(script: Script<R>, enqueue: boolean): ScriptCall<R> {
    return this.#fairOwner.call(script, {
      leaseMs: this.#ttl(),
      holdId: this.#holdId,
      waitId: this.#waitId,
      fencing: this.#fencing,
      enqueue,
      // An attempt says whether this waiter takes a direct hand-off; a leave, whether it may hand one on.
      direct: script === fairLockAcquireScript ? this.handOff !== undefined : takesHandOffs(this.core, undefined),
      nonReentrant: !this.#reentrant,
    });
  }
}

/** A granted fair hold: what renewing and releasing it needs. A class: one lives as long as each held lock. */
class FairHold implements HoldSpec {
  readonly core: ClientCore;
  readonly name: string;
  readonly token: number | undefined;
  readonly expiry: Expiry;
  readonly #fairOwner: FairOwner;
  /** Whether the owner came from the client's pool (and goes back there when the subscription ends). */
  readonly #pooled: boolean;
  readonly #ttlMs: number;
  readonly #holdId: string;

  /** `ttlMs`: the key's TTL, renewed by the watchdog when `renewed`, a fixed lease otherwise. */
  constructor(
    core: ClientCore,
    name: string,
    fairOwner: FairOwner,
    pooled: boolean,
    token: number | undefined,
    ttlMs: number,
    renewed: boolean,
    holdId: string,
  ) {
    this.core = core;
    this.name = name;
    this.token = token;
    this.expiry = renewed
      ? { type: 'watchdog', ttlMs, renewKind: FAIR_RENEW_KIND, key: fairOwner.lockKey, field: fairOwner.field }
      : { type: 'fixed', ms: ttlMs };
    this.#fairOwner = fairOwner;
    this.#pooled = pooled;
    this.#ttlMs = ttlMs;
    this.#holdId = holdId;
  }

  get kind(): 'fairLock' {
    return 'fairLock';
  }

  get owner(): string {
    return this.#fairOwner.owner;
  }

  release(): Command<ReleaseReply> {
    const direct = takesHandOffs(this.core, undefined);
    return this.#fairOwner.call(fairLockReleaseScript, { leaseMs: this.#ttlMs, holdId: this.#holdId, waitId: '', fencing: false, enqueue: false, direct });
  }

  /** Every hold has its own hold id, so the owner may serve the next acquisition while this release is in flight. */
  ended(): void {
    if (this.#pooled) this.core.local(FAIR_OWNERS).give(this.#fairOwner);
  }
}
