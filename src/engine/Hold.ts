import { Observable, throwError, type Subscription } from 'rxjs';
import { LockLostError, type LockLostReason } from '../errors/LockLostError.js';
import { driftFor, retryPauseMs, type ClientCore, type Tracked } from './ClientCore.js';
import type { LockKind } from './events.js';
import type { Lease } from './Lease.js';
import type { ReplyObserver } from '../store/Store.js';
import { ExpiryFix } from './ExpiryFix.js';
import type { Renewer, RenewTarget } from './Renewer.js';
import { send, type Command } from './send.js';
import { isTransient, toLockError } from './toLockError.js';

/**
 * How a hold's key stays alive: renewed by the watchdog (every third of `ttlMs`, by default the client's
 * `watchdogTimeoutMs`), a fixed lease that runs out, or no expiry at all.
 */
export type Expiry =
  | ({ readonly type: 'watchdog'; readonly ttlMs?: number | undefined } & RenewTarget)
  | { readonly type: 'fixed'; readonly ms: number }
  | { readonly type: 'none' };

/** What one owner-checked release command found: released (or decremented), or not held by this owner. */
export type ReleaseReply = 'released' | 'not-held';

export interface HoldSpec {
  readonly core: ClientCore;
  readonly name: string;
  readonly kind: LockKind;
  readonly owner: string;
  readonly token: number | undefined;
  readonly expiry: Expiry;
  /** One owner-checked release. Sending it again after it succeeded must answer `not-held` and change nothing. */
  release(): Command<ReleaseReply>;
  /** The subscription that held it ended, after its release was sent: what the hold borrowed goes back (a fair owner to its pool). Called once. */
  ended?(): void;
}

type State = 'held' | 'released' | 'lost';

/** Who hears that a lease was lost (the hold that owns it: an object, not a closure per lease). */
export interface LossListener {
  lost(error: LockLostError): void;
}

/** The outcome of ending a lease: hears, now or once it is known, whether it was released (undefined) or the error. */
interface Outcome {
  whenDone(callback: (error: unknown) => void): void;
}

/** An outcome known at once (ending a lease that was lost already). */
class KnownOutcome implements Outcome {
  readonly #error: unknown;

  constructor(error: unknown) {
    this.#error = error;
  }

  whenDone(callback: (error: unknown) => void): void {
    callback(this.#error);
  }
}

/**
 * A granted hold: the `Lease` users see plus the engine's side of it (renewal, deadline, release).
 * Ending it is idempotent; the release is sent once and retried only when its outcome is unknown,
 * which is safe because a release that finds nothing of this owner's changes nothing.
 */
export class Hold implements Lease {
  readonly acquiredAt: number;
  /** @internal The renewer's (watchdog) or the fixed lease's deadline; Infinity without expiry. */
  heldUntil = Infinity;
  /** @internal The renewer's slot for this lease (-1: not renewed). */
  renewIndex = -1;
  readonly #spec: HoldSpec;
  readonly #onLost: LossListener;
  /** The client's record of it, for `close()`; none while the watchdog renews it, as the renewer's list holds it then. */
  #tracked: Tracked | undefined;
  /** The watchdog renewing it, while one does. */
  #renewer: Renewer | undefined;
  #state: State = 'held';
  #controller: AbortController | undefined;
  #abortReason: unknown;
  #outcome: Outcome | undefined;
  #timer: Subscription | undefined;

  /**
   * `sentAt`: when the winning attempt was sent. `startedAt`: when the wait began (for the `acquired` event).
   * `now`: the grant's arrival. `confirmWithinMs`: the grant was handed over directly, and its key lasts this
   * long until renewed (see `confirmWindowMs`).
   */
  constructor(spec: HoldSpec, sentAt: number, startedAt: number, onLost: LossListener, now: number, confirmWithinMs?: number) {
    const { core, expiry } = spec;
    this.#spec = spec;
    this.#onLost = onLost;
    this.acquiredAt = now;
    if (expiry.type === 'watchdog') {
      const confirm =
        confirmWithinMs === undefined
          ? undefined
          : { ttlMs: confirmWithinMs, driftMs: driftFor(core.settings, confirmWithinMs), afterMs: core.settings.handoffMs };
      this.#renewer = core.renewers.for(expiry.ttlMs ?? core.settings.watchdogTimeoutMs);
      this.#renewer.add(this, sentAt, now, confirm);
    } else {
      this.#tracked = core.track(this);
      if (expiry.type === 'fixed') {
        this.heldUntil = sentAt + expiry.ms - driftFor(core.settings, expiry.ms);
        this.#loseAt(this.heldUntil, 'expired', now);
      }
    }
    if (core.events.observed) {
      core.events.emit({
        type: 'acquired',
        name: this.name,
        kind: spec.kind,
        owner: this.owner,
        time: this.acquiredAt,
        waitedMs: this.acquiredAt - startedAt,
        token: this.token,
      });
    }
  }

  // Read from the spec rather than copied: a held lease keeps as few fields as it can.
  get name(): string {
    return this.#spec.name;
  }

  get owner(): string {
    return this.#spec.owner;
  }

  get token(): number | undefined {
    return this.#spec.token;
  }

  get deadline(): number {
    return this.heldUntil;
  }

  /** @internal What the watchdog renews (only leases with a watchdog expiry are handed to it). */
  get renewTarget(): RenewTarget {
    return this.#spec.expiry as RenewTarget;
  }

  get held(): boolean {
    return this.#state === 'held' && this.#spec.core.scheduler.now() < this.deadline;
  }

  /** @internal Released or lost; unlike `held`, a renewal that is late does not count. */
  get ended(): boolean {
    return this.#state !== 'held';
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#state !== 'held') this.#controller.abort(this.#abortReason);
      else exactAfterPauses(this.#controller.signal, this);
    }
    return this.#controller.signal;
  }

  /**
   * @internal Marks the lease lost now if its deadline has passed. After a pause (a stopped process, a long
   * GC, a blocked event loop) the work's own timers may run before the lease's deadline timer; checks that
   * call this see the loss first.
   */
  checkDeadline(): void {
    if (this.#state === 'held' && this.#spec.core.scheduler.now() >= this.deadline) {
      this.lose(this.#spec.expiry.type === 'fixed' ? 'expired' : 'unconfirmed');
    }
  }

  /**
   * Ends the lease and releases it. The Observable completes once Redis confirmed the release (at once
   * after the client's `close()`, which released it), and errors with `LockLostError` if the lease was lost
   * before (its deadline passed, or the release found the lock no longer this owner's), or with the store's
   * error. Calling it again returns the same outcome without sending anything.
   */
  end(): Observable<void> {
    this.checkDeadline();
    this.#startRelease();
    return new Observable<void>((subscriber) => {
      this.#whenEnded((error) => (error === undefined ? subscriber.complete() : subscriber.error(error)));
    });
  }

  /** `end()` as a promise. */
  endPromise(): Promise<void> {
    this.checkDeadline();
    this.#startRelease();
    return new Promise<void>((resolve, reject) => this.#whenEnded((error) => (error === undefined ? resolve() : reject(error))));
  }

  /**
   * `end()` for work scoped to the lease (`withLock`, `withLease$`): errors only with the `LockLostError` of
   * a lease that was not held throughout. A release the store failed is reported on `events$`, never
   * instead of the work's outcome: the key's TTL frees it.
   */
  settle(): Observable<void> {
    this.checkDeadline();
    if (this.#state === 'lost' && !isClosedLoss(this.#abortReason)) {
      const error = this.#abortReason;
      return throwError(() => error);
    }
    this.#startRelease();
    return new Observable<void>((subscriber) => {
      this.#whenEnded((error) => (error instanceof LockLostError && !isClosedLoss(error) ? subscriber.error(error) : subscriber.complete()));
    });
  }

  /** Ends the lease on unsubscription: releases in the background and reports failures to `events$` only. */
  endQuietly(): void {
    this.#startRelease();
  }

  /** @internal The subscription that held it ended (see `HoldSpec.ended`). */
  subscriptionEnded(): void {
    this.#spec.ended?.();
  }

  /** Client close: the lease is lost to its holder and released. */
  close(): void {
    this.lose('closed');
  }

  /** @internal The lease can no longer be trusted: error the stream, abort the signal, free the key if it may still be ours. */
  lose(reason: LockLostReason): void {
    if (this.#state !== 'held') return;
    const { core, kind } = this.#spec;
    const error = new LockLostError(this.name, this.owner, reason);
    this.#stop('lost', error);
    if (core.events.observed) core.events.emit({ type: 'lost', name: this.name, kind, owner: this.owner, time: core.scheduler.now(), error });
    // The key may still carry this owner (unconfirmed, fixed lease ending, closing): free it for the next holder now.
    // Also when the renewal found it not held: over several masters that means only that a majority lacks it, and a
    // minority that still had it has just been extended for a whole lease; a leased semaphore may have lost only
    // some of its permits. The release is owner-checked, so where nothing is ours it changes nothing.
    this.#sendRelease(true);
    this.#onLost.lost(error);
  }

  /**
   * @internal Turns this watchdog-renewed lease into a fixed one of `ms`, counted from now (`multiLock$`, once
   * every member is held). `onFixed` hears when Redis confirmed it; a failure loses the lease.
   */
  fixExpiry(ms: number, onFixed: () => void): void {
    const { core, expiry } = this.#spec;
    if (this.#state !== 'held' || expiry.type !== 'watchdog') return;
    const command = expiry.renewKind.fix?.(expiry, ms);
    if (command === undefined) throw new TypeError(`rxlock: ${this.name}: a ${this.#spec.kind} lease cannot be set to a fixed lease`);
    // Off the watchdog before the command leaves: a renewal sent after it would lengthen the key again. Until
    // the reply, the last renewal's deadline stands.
    this.#renewer?.remove(this);
    this.#renewer = undefined;
    this.#tracked = core.track(this);
    this.#loseAt(this.heldUntil, 'unconfirmed');
    new ExpiryFix(core, this, command, ms, onFixed).send();
  }

  /** @internal The fixed lease of `ms` asked for at `sentAt` was confirmed. */
  expiryFixed(sentAt: number, ms: number, onFixed: () => void): void {
    if (this.#state !== 'held') return;
    this.heldUntil = sentAt + ms - driftFor(this.#spec.core.settings, ms);
    this.#loseAt(this.heldUntil, 'expired');
    onFixed();
  }

  /** @internal A renewal was confirmed. */
  renewed(): void {
    const { core, kind } = this.#spec;
    if (core.events.observed) core.events.emit({ type: 'renewed', name: this.name, kind, owner: this.owner, time: core.scheduler.now() });
  }

  /** @internal A renewal failed; the deadline still allows retries. */
  renewFailed(error: unknown): void {
    const { core, kind } = this.#spec;
    if (core.events.observed) {
      core.events.emit({
        type: 'renew-failed',
        name: this.name,
        kind,
        owner: this.owner,
        time: core.scheduler.now(),
        error: toLockError(error, this.name, this.owner),
      });
    }
  }

  #startRelease(): void {
    if (this.#outcome !== undefined) return;
    if (this.#state === 'lost') {
      // close() released it: a holder's own release during shutdown (a `finally`) has nothing left to report.
      this.#outcome = new KnownOutcome(isClosedLoss(this.#abortReason) ? undefined : this.#abortReason);
      return;
    }
    // The release first, the bookkeeping after: the next holder gets the lock sooner.
    this.#state = 'released';
    this.#sendRelease(false);
    this.#stop('released', undefined);
  }

  #whenEnded(callback: (error: unknown) => void): void {
    if (this.#outcome === undefined) callback(undefined);
    else this.#outcome.whenDone(callback);
  }

  #loseAt(at: number, reason: LockLostReason, now = this.#spec.core.scheduler.now()): void {
    this.#timer?.unsubscribe();
    this.#timer = this.#spec.core.scheduler.schedule(() => this.lose(reason), Math.max(0, at - now));
  }

  #stop(state: State, reason: unknown): void {
    this.#state = state;
    this.#abortReason = reason;
    this.#timer?.unsubscribe();
    if (this.#tracked === undefined) this.#renewer?.remove(this);
    else this.#spec.core.untrack(this.#tracked);
    this.#controller?.abort(reason);
  }

  /** Sends the release, retrying while its outcome is unknown and the hold could still exist. */
  #sendRelease(afterLoss: boolean): void {
    const release = new ReleaseCall(this.#spec, this, afterLoss);
    if (!afterLoss) this.#outcome = release;
    release.send(release.releasedAt);
  }
}

/** One lease's release in flight: retried while its outcome is unknown. One object, as releases are the hot path. */
class ReleaseCall implements ReplyObserver<ReleaseReply>, Outcome {
  /** Who waits for the outcome: none, one (the common case: no array), or several. */
  #waiting: ((error: unknown) => void) | ((error: unknown) => void)[] | undefined;
  #done = false;
  #error: unknown;
  readonly #spec: HoldSpec;
  readonly #lease: Hold;
  readonly #afterLoss: boolean;
  #counted = true;
  readonly releasedAt: number;
  /** The last moment a retry is sent: after the lease's deadline the key may be gone, and nobody relies on it. */
  readonly #lastRetryAt: number;
  #retried = false;
  #epoch = 0;

  constructor(spec: HoldSpec, lease: Hold, afterLoss: boolean) {
    const { core } = spec;
    this.#spec = spec;
    this.#lease = lease;
    this.#afterLoss = afterLoss;
    core.begin(true);
    this.releasedAt = core.scheduler.now();
    this.#lastRetryAt = Math.max(lease.deadline, this.releasedAt);
  }

  send(now = this.#spec.core.scheduler.now()): void {
    const { core } = this.#spec;
    this.#epoch = core.connection.epoch();
    send(core, this.#spec.release(), this, now);
  }

  next(reply: ReleaseReply): void {
    const lease = this.#lease;
    // A release that ran twice (re-sent after a dropped connection, or retried by us) answers not-held the second time.
    const ambiguous = this.#retried || this.#spec.core.connection.epoch() !== this.#epoch;
    this.#finish(reply === 'released' || ambiguous || this.#afterLoss ? undefined : new LockLostError(lease.name, lease.owner, 'not-held'));
  }

  error(error: unknown): void {
    const { core } = this.#spec;
    const pause = retryPauseMs(core.settings);
    if (isTransient(error) && core.scheduler.now() + pause < this.#lastRetryAt) {
      this.#retried = true;
      core.scheduler.schedule(() => this.send(), pause);
      return;
    }
    this.#finish(toLockError(error, this.#lease.name, this.#lease.owner));
  }

  #finish(error: unknown): void {
    if (this.#counted) {
      this.#counted = false;
      this.#spec.core.end(true);
    }
    if (this.#afterLoss) return;
    this.#done = true;
    this.#error = error;
    const { core, kind } = this.#spec;
    const lease = this.#lease;
    if (core.events.observed) {
      const time = core.scheduler.now();
      core.events.emit(
        error === undefined
          ? { type: 'released', name: lease.name, kind, owner: lease.owner, time, heldMs: this.releasedAt - lease.acquiredAt }
          : error instanceof LockLostError
            ? { type: 'lost', name: lease.name, kind, owner: lease.owner, time, error }
            : {
                type: 'release-failed',
                name: lease.name,
                kind,
                owner: lease.owner,
                time,
                error: error instanceof Error ? error : new Error(typeof error === 'string' ? error : 'release failed'),
              },
      );
    }
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (typeof waiting === 'function') waiting(error);
    else if (waiting !== undefined) for (const callback of waiting) callback(error);
  }

  whenDone(callback: (error: unknown) => void): void {
    const waiting = this.#waiting;
    if (this.#done) callback(this.#error);
    else if (waiting === undefined) this.#waiting = callback;
    else if (typeof waiting === 'function') this.#waiting = [waiting, callback];
    else waiting.push(callback);
  }
}

function isClosedLoss(error: unknown): boolean {
  return error instanceof LockLostError && error.reason === 'closed';
}

// The platform's getter, called on each signal with that signal as `this`.
// eslint-disable-next-line @typescript-eslint/unbound-method
const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get as ((this: AbortSignal) => boolean) | undefined;

/**
 * Makes a held lease's `signal.aborted` and `signal.throwIfAborted()` exact: each first marks the lease lost
 * if its deadline has passed, so that work which checks the signal before each step never takes one step too
 * many after a pause (its own timer may come due before the lease's deadline timer).
 */
function exactAfterPauses(signal: AbortSignal, lease: Hold): void {
  if (abortedOf === undefined) return;
  Object.defineProperty(signal, 'aborted', {
    configurable: true,
    get(this: AbortSignal): boolean {
      if (!abortedOf.call(this)) lease.checkDeadline();
      return abortedOf.call(this);
    },
  });
  signal.throwIfAborted = function (this: AbortSignal): void {
    if (!abortedOf.call(this)) lease.checkDeadline();
    if (abortedOf.call(this)) throw this.reason;
  };
}
