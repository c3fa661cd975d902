import type { Subscription } from 'rxjs';
import { LockLostError } from '../errors/LockLostError.js';
import { LockTimeoutError } from '../errors/LockTimeoutError.js';
import type { ClientCore } from './ClientCore.js';
import type { LockKind } from './events.js';
import { send, type Command } from './send.js';
import { isTransient, outcomeUnknown, toLockError } from './toLockError.js';
import type { WaitTicket, WaiterCallbacks, WakePolicy } from './WakeHub.js';

/** What one attempt learned: the grant, or how long until it is worth trying again (negative: unknown). */
export type AttemptReply<G> =
  | {
      readonly granted: true;
      readonly grant: G;
      /** When the grant's TTL started, if before this attempt was sent (a hand-off learnt from a message). */
      readonly sentAt?: number;
    }
  | {
      readonly granted: false;
      readonly retryInMs: number;
      /** This waiter's id in the server's queue, if it has one: wake-up messages may name it. @default the owner */
      readonly waiterId?: string;
      /** The server's time (µs) when the attempt found the caller queued, for primitives that time direct hand-offs from it. */
      readonly serverUs?: number;
    };

/** What a primitive tells the engine about acquiring it. */
export interface AcquireSpec<G> {
  readonly core: ClientCore;
  /** The name the caller used, for errors and events. */
  readonly name: string;
  readonly kind: LockKind;
  readonly owner: string;
  /** Undefined: wait as long as it takes. 0: one attempt. */
  readonly waitMs: number | undefined;
  /** Where releases are announced, and how a message there wakes local waiters. */
  readonly channel: string;
  readonly policy: WakePolicy;
  /** Keep the channel subscribed this long after the last local waiter leaves. @default 0 */
  readonly graceMs?: number;
  /**
   * One attempt (a script call, or an Observable that sends it). `asWaiter`: this caller has been waiting (it
   * may take a reserved hand-off). `now`: the scheduler's time, read by the engine anyway.
   */
  attempt(asWaiter: boolean, now: number): Command<AttemptReply<G>>;
  /**
   * A grant that reached this caller without a command (a hand-off message carried it), taken once; the
   * engine asks before each attempt and sends none if there is one. @default none
   */
  handedGrant?(now: number): AttemptReply<G> | undefined;
  /** The attempt sent at `sentAt` found the caller queued at the server's time `serverUs` (when its reply says). */
  queued?(serverUs: number, sentAt: number): void;
  /**
   * Owner-checked release of a grant nobody will use, or of an attempt whose outcome is unknown. Never throws.
   * `settled` is called once it was answered or failed: `known` says it has run or never will, `false` that
   * it may still run (no reply in time, connection lost while it was out).
   */
  compensate(settled?: (known: boolean) => void): void;
  /** Takes this waiter out of a server-side queue when it gives up (fair lock). Never throws. */
  abandon?(): void;
  /**
   * A second channel to listen on while waiting: where releases hand the lock to this client's waiters
   * directly (lock). Read once, when the wait begins.
   */
  readonly handOff?: HandOffLine | undefined;
  /**
   * What must hear that the hold ended (released, lost, failed or cancelled), if anything: asked once, when
   * the grant arrives or the acquisition fails, so that a hold keeps nothing it does not need.
   */
  endListener?(): EndListener | undefined;
}

/** A channel whose messages wake the waiter they name by `id` (see `AcquireSpec.handOff`). */
export interface HandOffLine {
  readonly channel: string;
  readonly policy: WakePolicy;
  readonly id: string;
}

export interface EndListener {
  ended(): void;
}

export interface AcquireHandlers<G> {
  /** The lock is held. `sentAt` is when the winning attempt was sent: the lease's deadline counts from it. `now`: when `trusted` (if any) checked it. */
  granted(grant: G, sentAt: number, now: number): void;
  /**
   * Whether a grant whose attempt was sent at `sentAt` can still be trusted now. One whose reply came after
   * the lease's own deadline (Redis paused, replies delayed) cannot: the engine releases it and the
   * acquisition fails with `LockLostError` (`unconfirmed`) without handing out a lease.
   */
  trusted?(grant: G, sentAt: number, now: number): boolean;
  failed(error: Error): void;
}

/** Longest pause between attempts when the holder's TTL is unknown (a key without expiry). */
const MAX_BLIND_WAIT_MS = 1_000;
const FIRST_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 1_000;

/**
 * Runs the acquire loop: try; on failure join the channel's local line, try again once the subscription
 * is confirmed, on each wake and at the latest when the holder's TTL runs out; give up at `waitMs`.
 * An attempt is never abandoned mid-flight: if the caller left meanwhile and the attempt won, the grant
 * is released at once. Returns the cancel function (unsubscribe).
 */
export function acquire<G>(spec: AcquireSpec<G>, handlers: AcquireHandlers<G>, now = spec.core.scheduler.now()): Cancellable {
  const acquisition = new Acquisition(spec, handlers, now);
  acquisition.start(now);
  return acquisition;
}

/** What `acquire` returns: cancelling unsubscribes (the acquisition itself, not a closure: one per hold). */
export interface Cancellable {
  cancel(): void;
}

/** One acquisition's state machine. A class rather than closures: acquisitions are the hot path. */
class Acquisition<G> implements WaiterCallbacks, Cancellable {
  readonly #spec: AcquireSpec<G>;
  readonly #handlers: AcquireHandlers<G>;
  readonly #deadline: number;
  #done = false;
  #inFlight = false;
  /** A wake or ready arrived while an attempt was in flight: try again at once if it loses. */
  #again = false;
  /** The attempt in flight was caused by a wake (so the hub must be told how it went). */
  #wokenAttempt = false;
  #waited = false;
  #failures = 0;
  #sentAt = 0;
  #ticket: WaitTicket | undefined;
  #handOffTicket: WaitTicket | undefined;
  #retryTimer: Subscription | undefined;
  #waitTimer: Subscription | undefined;

  constructor(spec: AcquireSpec<G>, handlers: AcquireHandlers<G>, now: number) {
    this.#spec = spec;
    this.#handlers = handlers;
    this.#deadline = spec.waitMs === undefined ? Infinity : now + spec.waitMs;
  }

  start(now: number): void {
    const { waitMs, core, name } = this.#spec;
    if (waitMs !== undefined && waitMs > 0) {
      this.#waitTimer = core.scheduler.schedule(() => this.#giveUp(new LockTimeoutError(name, waitMs)), waitMs);
    }
    this.#attempt(false, now);
  }

  cancel(): void {
    if (this.#done) return;
    this.#finish();
    this.#leaveLines(false);
    if (this.#waited) this.#spec.abandon?.();
  }

  onReady(): void {
    this.#trigger(false);
  }

  onWake(): void {
    this.#trigger(true);
  }

  /** The reply to the attempt in flight. */
  next(reply: AttemptReply<G>): void {
    const spec = this.#spec;
    this.#inFlight = false;
    this.#failures = 0;
    if (this.#done) {
      // The caller left while this attempt was in flight: free its grant, or take it out of the queue its refusal joined.
      if (reply.granted) spec.compensate();
      else spec.abandon?.();
      return;
    }
    if (reply.granted) {
      const sentAt = reply.sentAt ?? this.#sentAt;
      const now = spec.core.scheduler.now();
      if (this.#handlers.trusted?.(reply.grant, sentAt, now) === false) {
        // Not tried again here: a retry under the same field and hold id would be answered "granted again" by
        // the script while the compensating release may still be on its way (a NOSCRIPT fallback lets it be overtaken).
        spec.compensate();
        this.#giveUp(new LockLostError(spec.name, spec.owner, 'unconfirmed'));
        return;
      }
      // The lease first, the tidying after (a timer to cancel, lines to leave): the holder's work starts sooner.
      this.#done = true;
      try {
        this.#handlers.granted(reply.grant, sentAt, now);
      } finally {
        this.#finish();
        this.#leaveLines(true);
      }
      return;
    }
    if (spec.waitMs === 0) {
      this.#giveUp(new LockTimeoutError(spec.name, 0));
      return;
    }
    if (reply.serverUs !== undefined) spec.queued?.(reply.serverUs, this.#sentAt);
    this.#waitAgain(reply.retryInMs, reply.waiterId ?? spec.owner);
  }

  /** The attempt in flight failed (or timed out). */
  error(error: unknown): void {
    const spec = this.#spec;
    this.#inFlight = false;
    const unknown = outcomeUnknown(error);
    if (this.#done) {
      if (unknown) {
        spec.compensate();
        spec.abandon?.();
      }
      return;
    }
    if (unknown && this.#mayRetry(error)) {
      this.#compensateThenRetry(error);
      return;
    }
    // The attempt may have won: free that grant. No retry of ours follows it, so its order does not matter.
    if (unknown) spec.compensate();
    this.#retryOrGiveUp(error);
  }

  /**
   * The attempt may have won: free that grant before anything else. The retry carries the same field, so it
   * waits until the compensation was answered: sent earlier, the compensation could still run later (re-sent
   * after a NOSCRIPT, or itself unanswered) and free the retry's own grant while its holder believes in it.
   */
  #compensateThenRetry(error: unknown): void {
    this.#inFlight = true;
    this.#spec.compensate((known) => {
      if (this.#done) return;
      if (known) {
        this.#inFlight = false;
        this.#retryOrGiveUp(error);
        return;
      }
      // Still unanswered: try again after a back-off while waiting is allowed (no attempt meanwhile).
      const pause = this.#nextBackoff();
      if (!this.#mayRetry(error, pause)) {
        this.#giveUp(toLockError(error, this.#spec.name, this.#spec.owner));
        return;
      }
      this.#retryTimer = this.#spec.core.scheduler.schedule(() => this.#compensateThenRetry(error), pause);
    });
  }

  #retryOrGiveUp(error: unknown): void {
    const spec = this.#spec;
    const pause = this.#nextBackoff();
    if (this.#mayRetry(error, pause)) {
      this.#retryTimer = spec.core.scheduler.schedule(() => this.#trigger(false), pause);
      return;
    }
    this.#giveUp(toLockError(error, spec.name, spec.owner));
  }

  #mayRetry(error: unknown, pause = 0): boolean {
    return isTransient(error) && this.#spec.core.scheduler.now() + pause < this.#deadline;
  }

  #nextBackoff(): number {
    return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.#failures++);
  }

  #attempt(asWaiter: boolean, now = this.#spec.core.scheduler.now()): void {
    const spec = this.#spec;
    this.#again = false;
    this.#sentAt = now;
    const handed = spec.handedGrant?.(now);
    if (handed !== undefined) {
      this.next(handed);
      return;
    }
    this.#retryTimer?.unsubscribe();
    this.#inFlight = true;
    send(spec.core, spec.attempt(asWaiter, now), this, now);
  }

  #trigger(woken: boolean): void {
    if (this.#done) return;
    if (woken) this.#wokenAttempt = true;
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#attempt(true);
  }

  #waitAgain(retryInMs: number, waiterId: string): void {
    const spec = this.#spec;
    const { core } = spec;
    if (!this.#waited) {
      this.#waited = true;
      if (core.events.observed) core.events.emit({ type: 'waiting', name: spec.name, kind: spec.kind, owner: spec.owner, time: core.scheduler.now() });
    }
    if (this.#ticket === undefined) {
      this.#ticket = core.hub.join(spec.channel, waiterId, spec.policy, this, spec.graceMs ?? 0);
      const line = spec.handOff;
      if (line !== undefined) this.#handOffTicket = core.hub.join(line.channel, line.id, line.policy, this, spec.graceMs ?? 0);
    } else {
      this.#ticket.identify(waiterId);
      if (this.#wokenAttempt) {
        this.#wokenAttempt = false;
        this.#ticket.rearm();
        this.#handOffTicket?.rearm();
      }
    }
    // Rearming may have delivered a wake that arrived meanwhile and started the next attempt.
    if (this.#done || this.#inFlight) return;
    if (this.#again) {
      this.#attempt(true);
      return;
    }
    const pause = retryInMs >= 0 ? retryInMs : MAX_BLIND_WAIT_MS;
    if (pause < this.#deadline - core.scheduler.now()) {
      this.#retryTimer?.unsubscribe();
      this.#retryTimer = core.scheduler.schedule(() => this.#trigger(false), pause);
    }
  }

  #giveUp(error: Error): void {
    if (this.#done) return;
    const spec = this.#spec;
    const { core } = spec;
    this.#finish();
    this.#leaveLines(false);
    if (this.#waited) spec.abandon?.();
    if (error instanceof LockTimeoutError && core.events.observed) {
      core.events.emit({ type: 'timeout', name: spec.name, kind: spec.kind, owner: spec.owner, time: core.scheduler.now(), error });
    }
    this.#handlers.failed(error);
  }

  #leaveLines(acquired: boolean): void {
    this.#ticket?.leave(acquired);
    this.#handOffTicket?.leave(acquired);
  }

  #finish(): void {
    this.#done = true;
    this.#retryTimer?.unsubscribe();
    this.#waitTimer?.unsubscribe();
  }
}
