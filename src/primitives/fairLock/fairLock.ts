import { Observable, type Subscriber, type Unsubscribable } from 'rxjs';
import type { AcquireSpec, AttemptReply } from '../../engine/acquisition.js';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Expiry, HeldLease, HoldSpec, ReleaseReply } from '../../engine/HeldLease.js';
import { startHold, type HoldFactory } from '../../engine/hold.js';
import type { Lease } from '../../engine/Lease.js';
import { fire, type Command } from '../../engine/send.js';
import type { Script } from '../../store/Script.js';
import type { ScriptCall } from '../../store/Store.js';
import type { WakePolicy } from '../../engine/WakeHub.js';
import { abortable } from '../abortable.js';
import { checkLockCall, type LockOptions } from '../lock/lock.js';
import { contextOwner } from '../reentrancy.js';
import { listen, stopListening, type FairChannel } from './fairChannel.js';
import { fairLockKeys } from './fairLockKeys.js';
import { FairWaiter } from './fairWaiter.js';
import { fairLockLeaveScript } from './leaveScript.js';
import { returnOwner, takeOwner } from './ownerPool.js';
import { fairLockReleaseScript } from './releaseScript.js';

/** Options of `fairLock$`: those of `lock$`. */
export type FairLockOptions = LockOptions;

/**
 * How long a waiter's channel stays subscribed after its wait, so that the client's next acquisition of
 * the same name (which reuses the owner, see `takeOwner`) needs no SUBSCRIBE.
 */
const CHANNEL_GRACE_MS = 5_000;

/**
 * The hold behind `fairLock$`: granted in the order of the first attempts, across all clients (Redisson's
 * RFairLock). Each waiter has a place in the line and a channel of its own; a release hands the lock to the
 * head only. Unsubscribing while waiting leaves the line at once.
 */
export function fairLockHold$(core: ClientCore, name: string, options: FairLockOptions = {}): Observable<HeldLease> {
  const held$ = new Observable<HeldLease>((subscriber) => new FairAcquisition(core, name, options).start(subscriber));
  return abortable(held$, options.signal);
}

/** `fairLock$` as the client exposes it: validates, then holds. */
export function fairLock$(core: ClientCore, name: string, options?: FairLockOptions): Observable<Lease> {
  return new Observable<HeldLease>((subscriber) => {
    try {
      checkLockCall('fairLock$', name, options, core.settings);
    } catch (error) {
      subscriber.error(error);
      return undefined;
    }
    if (options?.signal !== undefined) return fairLockHold$(core, name, options).subscribe(subscriber);
    return new FairAcquisition(core, name, options ?? {}).start(subscriber);
  });
}

/**
 * One subscription to a fair lock, from its first attempt to its release: what the engine needs to acquire
 * it (`AcquireSpec`) and to hold it (`HoldSpec`), and the subscription's teardown. It lives as long as the
 * hold, so it keeps only the few strings of its own (hold id, wait id): script arguments are built when sent,
 * and the keys come from the per-name cache.
 */
class FairAcquisition implements AcquireSpec<number>, HoldSpec, HoldFactory<number>, Unsubscribable {
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly waitMs: number | undefined;
  readonly expiry: Expiry;
  token: number | undefined;
  readonly #leaseMs: number | undefined;
  readonly #fencing: boolean;
  readonly #fair: FairChannel;
  /** Whether the owner came from the pool (and goes back there at the end). */
  readonly #pooled: boolean;
  /** Its id names the wait, and with the client id the hold: every hold has its own id, even an owner's that never re-enters, as pooled owners are reused at once. */
  readonly #waiter: FairWaiter;
  #hold: Unsubscribable | undefined;
  #granted = false;
  /** An attempt may have put this acquisition in the line, and no leave was sent after it. */
  #mayBeQueued = false;

  constructor(core: ClientCore, name: string, options: FairLockOptions) {
    const { leaseMs, waitMs, fencing = false } = options;
    const keys = fairLockKeys(core.keyPrefix + name);
    const chosen = options.owner ?? contextOwner(core, keys.lock);
    const pooled = chosen === undefined ? takeOwner(core, keys) : undefined;
    this.#waiter = new FairWaiter(core.newOwner());
    const fair = listen(core, keys, chosen ?? pooled?.owner ?? '', this.#waiter, pooled);
    this.core = core;
    this.name = name;
    this.owner = fair.owner;
    this.waitMs = waitMs;
    this.expiry = leaseMs === undefined ? fair.watchdog : { type: 'fixed', ms: leaseMs };
    this.#leaseMs = leaseMs;
    this.#fencing = fencing;
    this.#fair = fair;
    this.#pooled = pooled !== undefined;
  }

  get kind(): 'fairLock' {
    return 'fairLock';
  }

  get graceMs(): number {
    return CHANNEL_GRACE_MS;
  }

  get channel(): string {
    return this.#fair.channel;
  }

  get policy(): WakePolicy {
    return this.#fair.policy;
  }

  start(subscriber: Subscriber<HeldLease>): Unsubscribable {
    this.#hold = startHold(this, this, subscriber);
    return this;
  }

  unsubscribe(): void {
    // Ending the hold first sends the release (or cancels the wait) before anything else here.
    this.#hold?.unsubscribe();
    stopListening(this.#fair, this.#waiter);
    // The engine leaves the line itself once it saw the caller queued; this covers a first attempt still in flight.
    if (!this.#granted && this.#mayBeQueued) this.abandon();
    if (this.#pooled) returnOwner(this.#fair);
  }

  /** The message was the reply: granting at once, inside its delivery, saves a round trip per hand-off. */
  handedGrant(now: number): AttemptReply<number> | undefined {
    const handed = this.#waiter.takeGrant(now, this.core.settings.driftFactor);
    return handed === undefined ? undefined : { granted: true, grant: handed.token, sentAt: handed.sentAt };
  }

  attempt(_asWaiter: boolean, now: number): Command<AttemptReply<number>> {
    if (this.waitMs !== 0) this.#mayBeQueued = true;
    this.#waiter.sending(now);
    return this.#call(this.#waiter, this.waitMs !== 0);
  }

  /** A grant nobody will use (or an attempt of unknown outcome) is given back; the place in line is kept while the wait goes on. */
  compensate(settled?: (known: boolean) => void): void {
    this.#waiter.forgetHandOffs();
    fire(this.core, this.#call(fairLockLeaveScript, this.waitMs !== 0), settled);
  }

  /** Giving up leaves the line. */
  abandon(): void {
    this.#mayBeQueued = false;
    fire(this.core, this.#call(fairLockLeaveScript, false));
  }

  release(): Command<ReleaseReply> {
    return this.#call(fairLockReleaseScript, false);
  }

  /** @internal The engine's: the grant arrived. */
  toHold(token: number): HoldSpec {
    this.#granted = true;
    this.token = this.#fencing ? token : undefined;
    return this;
  }

  /** A call of one of the fair lock's scripts as this acquisition; `enqueue`: take a place in line if refused. */
  #call<R>(script: Script<R>, enqueue: boolean): ScriptCall<R> {
    return this.#fair.call(script, {
      leaseMs: this.#leaseMs ?? this.core.settings.watchdogTimeoutMs,
      holdId: `${this.core.clientId}:${this.#waiter.waitId}`,
      waitId: this.#waiter.waitId,
      fencing: this.#fencing,
      enqueue,
    });
  }
}
