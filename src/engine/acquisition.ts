import type { Subscription } from 'rxjs';
import { LockLostError } from '../errors/LockLostError.js';
import { LockTimeoutError } from '../errors/LockTimeoutError.js';
import { LockBackendError } from '../errors/LockBackendError.js';
import { StoreError } from '../store/StoreError.js';
import type { ClientCore } from './ClientCore.js';
import type { LockKind } from './events.js';
import { send, type Command } from './send.js';
import { isTransient, outcomeUnknown, toLockError } from './toLockError.js';
import { HandOffClock } from './handOff/HandOffClock.js';
import { CHECKING, type RestartGuard } from './RestartGuard.js';
import type { HoldSpec } from './Hold.js';
import type { WaitTicket, WaiterCallbacks, WakePolicy } from './WakeHub.js';

/** What one attempt learned: the grant, or how long until it is worth trying again (negative: unknown). */
export type AttemptReply<G> =
  | {
      readonly granted: true;
      readonly grant: G;
      /** When the grant's TTL started, if before this attempt was sent (a hand-off learnt from a message). */
      readonly sentAt?: number;
      /** Handed over directly: the key lasts only until the holder confirms it (see `CONFIRM_HANDOFFS`). */
      readonly handed?: boolean;
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
  /**
   * Where releases are announced, and how a message there wakes local waiters. Without one (a spin lock) the
   * acquisition only polls: it tries again when the refusal's `retryInMs` says.
   */
  readonly channel: string | undefined;
  readonly policy?: WakePolicy | undefined;
  /** Keep the channel subscribed this long after the last local waiter leaves. @default 0 */
  readonly graceMs?: number;
  /** Permits this acquisition needs, for a channel whose messages count released permits. @default 1 */
  readonly need?: number;
  /**
   * One attempt (a script call, or an Observable that sends it). `asWaiter`: this caller has been waiting (it
   * may take a reserved hand-off). `now`: the scheduler's time, read by the engine anyway.
   */
  attempt(asWaiter: boolean, now: number): Command<AttemptReply<G>>;
  /**
   * Owner-checked release of a grant nobody will use, or of an attempt whose outcome is unknown. Never throws.
   * `settled` is called once it was answered or failed: `known` says it has run or never will, `false` that
   * it may still run (no reply in time, connection lost while it was out).
   */
  compensate(settled?: (known: boolean) => void): void;
  /** Takes this waiter out of a server-side queue when it gives up (fair lock). Never throws. */
  abandon?(): void;
  /**
   * Where releases may hand the lock to this acquisition directly (`lock$`, `fairLock$`), if they may: the
   * grant then comes in a message, and the engine takes it without a command (see `GrantMailbox`). Only for
   * grants that are fencing tokens.
   */
  readonly handOff?: HandOffSpec | undefined;
}

/** Everything the engine needs to hold a lock-like primitive (`hold$`): how to acquire it, and what a grant becomes. */
export interface LockSpec<G> extends AcquireSpec<G> {
  /**
   * What a grant becomes once held: how the hold expires and is released. Called once per grant (also for a
   * grant the engine then refuses to trust); `sentAt` is when the winning attempt was sent, `startedAt` when
   * the wait began.
   */
  hold(grant: G, sentAt: number, startedAt: number): HoldSpec;
  /**
   * The subscription ended before a hold was granted to it, after the engine cancelled the wait (a grant then
   * ends through `HoldSpec.ended` instead). Called at most once.
   */
  ended?(): void;
}

/** How an acquisition hears direct hand-offs: its client's channel for them, its name there, and how to give one back. */
export interface HandOffSpec {
  readonly channel: string;
  /** This acquisition's name in the lock's queue, which the hand-off messages carry. */
  readonly member: string;
  readonly policy: WakePolicy;
  /** Releases a lock handed to a member nobody here expects (an acquisition that ended), which hands it on. */
  readonly giveBack: (member: string) => void;
}

export interface AcquireHandlers<G> {
  /**
   * The lock is held. `sentAt` is when the winning attempt was sent: the lease's deadline counts from it.
   * `now`: when `trusted` (if any) checked it. `handed`: it came by a direct hand-off, to be confirmed.
   */
  granted(grant: G, sentAt: number, now: number, handed: boolean): void;
  /**
   * Whether a grant whose attempt was sent at `sentAt` can still be trusted now. One whose reply came after
   * the lease's own deadline (Redis paused, replies delayed) cannot: the engine releases it and the
   * acquisition fails with `LockLostError` (`unconfirmed`) without handing out a lease.
   */
  trusted?(grant: G, sentAt: number, now: number, handed: boolean): boolean;
  failed(error: Error): void;
  /**
   * The client's mailbox now expects hand-offs to this acquisition (it may be queued): the handler forgets them
   * (`GrantMailbox.forget`) when its hold ends, as a hand-off may cross the attempt that won. Required for a
   * spec with `handOff`.
   */
  expecting?(channel: string, member: string, clock: HandOffClock): void;
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
  /** When the first attempt of the current run of failures was sent (-1: the last attempt was answered). */
  #failingSince = -1;
  /** The store's error for the latest failed attempt, while failures run. */
  #lastFailure: unknown;
  #sentAt = 0;
  #ticket: WaitTicket | undefined;
  #handOffTicket: WaitTicket | undefined;
  #retryTimer: Subscription | undefined;
  /** When a `later` wake asked for the next attempt at the latest. */
  #latestRetryAt = Infinity;
  #waitTimer: Subscription | undefined;
  /** Times direct hand-offs to this acquisition (only with `spec.handOff`). */
  readonly #clock: HandOffClock | undefined;
  /** Whether the client's mailbox expects hand-offs to it (the hold forgets them when it ends). */
  #expecting = false;
  /** The connection's epoch when the attempt in flight was sent (with a restart guard). */
  #sentEpoch = -1;

  constructor(spec: AcquireSpec<G>, handlers: AcquireHandlers<G>, now: number) {
    this.#spec = spec;
    this.#handlers = handlers;
    this.#deadline = spec.waitMs === undefined ? Infinity : now + spec.waitMs;
    this.#clock = spec.handOff === undefined ? undefined : new HandOffClock();
  }

  start(now: number): void {
    const { waitMs, core, name } = this.#spec;
    if (waitMs !== undefined && waitMs > 0) {
      this.#waitTimer = core.scheduler.schedule(() => this.#giveUp(new LockTimeoutError(name, waitMs, { cause: this.#backendCause() })), waitMs);
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

  onWakeLater(afterMs: number): void {
    if (this.#done) return;
    const at = this.#spec.core.scheduler.now() + afterMs;
    if (at >= this.#latestRetryAt) return;
    this.#latestRetryAt = at;
    if (this.#inFlight) return;
    this.#retryTimer?.unsubscribe();
    this.#retryTimer = this.#spec.core.scheduler.schedule(() => this.#trigger(false), afterMs);
  }

  /** The reply to the attempt in flight. */
  next(reply: AttemptReply<G>): void {
    const spec = this.#spec;
    this.#inFlight = false;
    this.#failures = 0;
    this.#failingSince = -1;
    this.#lastFailure = undefined;
    if (this.#done) {
      // The caller left while this attempt was in flight: free its grant, or take it out of the queue its refusal joined.
      if (reply.granted) this.#compensate();
      else spec.abandon?.();
      return;
    }
    if (reply.granted && reply.handed !== true && spec.core.restartGuard?.trusts(this.#sentEpoch) === false) {
      // Granted across a lost connection: by a server that may have just restarted. Given back, and asked again once checked.
      this.error(new StoreError('unavailable', 'the connection was lost while the attempt was out; the server may have restarted', true));
      return;
    }
    if (reply.granted) {
      const sentAt = reply.sentAt ?? this.#sentAt;
      const handed = reply.handed === true;
      const now = spec.core.scheduler.now();
      if (this.#handlers.trusted?.(reply.grant, sentAt, now, handed) === false) {
        // Not tried again here: a retry under the same field and hold id would be answered "granted again" by
        // the script while the compensating release may still be on its way (a NOSCRIPT fallback lets it be overtaken).
        this.#compensate();
        this.#giveUp(new LockLostError(spec.name, spec.owner, 'unconfirmed'));
        return;
      }
      // The lease first, the tidying after (a timer to cancel, lines to leave): the holder's work starts sooner.
      this.#done = true;
      try {
        this.#handlers.granted(reply.grant, sentAt, now, handed);
      } finally {
        this.#finish();
        this.#leaveLines(true);
      }
      return;
    }
    if (spec.waitMs === 0) {
      this.#giveUp(new LockTimeoutError(spec.name, 0, { cause: this.#backendCause() }));
      return;
    }
    if (reply.serverUs !== undefined && this.#clock !== undefined) {
      this.#clock.queued(reply.serverUs, this.#sentAt);
      this.#expect();
    }
    this.#waitAgain(reply.retryInMs, reply.waiterId ?? spec.owner);
  }

  /** The attempt in flight failed (or timed out). */
  error(error: unknown): void {
    const spec = this.#spec;
    this.#inFlight = false;
    const unknown = outcomeUnknown(error);
    if (this.#done) {
      if (unknown) {
        this.#compensate();
        spec.abandon?.();
      }
      return;
    }
    this.#failed(error);
    if (unknown && this.#mayRetry(error)) {
      this.#compensateThenRetry(error);
      return;
    }
    // The attempt may have won: free that grant. No retry of ours follows it, so its order does not matter.
    if (unknown) this.#compensate();
    this.#retryOrGiveUp(error);
  }

  /**
   * The attempt may have won: free that grant before anything else. The retry carries the same field, so it
   * waits until the compensation was answered: sent earlier, the compensation could still run later (re-sent
   * after a NOSCRIPT, or itself unanswered) and free the retry's own grant while its holder believes in it.
   */
  #compensateThenRetry(error: unknown): void {
    this.#inFlight = true;
    this.#compensate((known) => {
      if (this.#done) return;
      if (known) {
        this.#inFlight = false;
        this.#retryOrGiveUp(error);
        return;
      }
      // Still unanswered: try again after a back-off while waiting is allowed (no attempt meanwhile).
      const pause = this.#nextBackoff();
      if (!this.#mayRetry(error, pause)) {
        this.#giveUp(this.#failure(error));
        return;
      }
      this.#retryTimer = this.#spec.core.scheduler.schedule(() => this.#compensateThenRetry(error), pause);
    });
  }

  /** A hand-off that reached this acquisition before the compensation ran is released with it: none is taken until an attempt finds it queued again. */
  #compensate(settled?: (known: boolean) => void): void {
    this.#clock?.forgetHandOffs();
    this.#spec.compensate(settled);
  }

  /** From now until the hold ends, the client's mailbox takes hand-offs to this acquisition. */
  #expect(): void {
    const handOff = this.#spec.handOff;
    if (this.#expecting || handOff === undefined || this.#clock === undefined) return;
    this.#expecting = true;
    this.#spec.core.handOffs.expect(handOff.channel, handOff.member, this.#clock);
    this.#handlers.expecting?.(handOff.channel, handOff.member, this.#clock);
  }

  #retryOrGiveUp(error: unknown): void {
    const spec = this.#spec;
    const pause = this.#boundedPause(this.#nextBackoff());
    if (this.#mayRetry(error, pause)) {
      this.#retryTimer = spec.core.scheduler.schedule(() => this.#trigger(false), pause);
      return;
    }
    // With a wait left but no retry before its end: the wait's timer ends it, naming this error as the cause.
    if (isTransient(error) && spec.waitMs !== undefined && spec.waitMs > 0) return;
    this.#giveUp(this.#failure(error));
  }

  /** Without `waitMs`, no pause runs past the moment silence is reported (a retry lands at that moment at the latest). */
  #boundedPause(pause: number): number {
    const { core, waitMs } = this.#spec;
    if (waitMs !== undefined || this.#failingSince < 0) return pause;
    return Math.max(0, Math.min(pause, this.#failingSince + core.settings.commandTimeoutMs - core.scheduler.now()));
  }

  /**
   * A retry is sent while waiting is allowed; without `waitMs`, only until the server has gone unanswered for
   * `commandTimeoutMs` since the first failed attempt: an unreachable Redis is reported, not waited for.
   */
  #mayRetry(error: unknown, pause = 0): boolean {
    const { core, waitMs } = this.#spec;
    const at = core.scheduler.now() + pause;
    if (!isTransient(error) || at >= this.#deadline) return false;
    // BUSY is an answer (a long script elsewhere): only silence (a timeout, a lost connection) is bounded.
    if (waitMs !== undefined || this.#failingSince < 0 || (error instanceof StoreError && error.code === 'busy')) return true;
    return core.scheduler.now() < this.#failingSince + core.settings.commandTimeoutMs;
  }

  /** An attempt failed: `events$` hears it as it happens, and a timeout later names it as its cause. */
  #failed(error: unknown): void {
    const { core, name, kind, owner } = this.#spec;
    if (this.#failingSince < 0) this.#failingSince = this.#sentAt;
    this.#lastFailure = error;
    if (core.events.observed) {
      core.events.emit({ type: 'attempt-failed', name, kind, owner, time: core.scheduler.now(), error: toLockError(error, name, owner) });
    }
  }

  /** The public error of an acquisition that gives up on `error`: a transient one means Redis did not answer. */
  #failure(error: unknown): Error {
    const { core, name, owner, waitMs } = this.#spec;
    if (!isTransient(error) || waitMs !== undefined || (error instanceof StoreError && error.code === 'busy')) return toLockError(error, name, owner);
    const cause = error instanceof StoreError && error.cause !== undefined ? error.cause : error;
    return new LockBackendError(name, 'unavailable', `no answer from Redis for ${String(core.settings.commandTimeoutMs)} ms`, { cause });
  }

  /** The store's error behind the latest failed attempts, if the last attempt failed. */
  #backendCause(): unknown {
    return this.#failingSince < 0 ? undefined : toLockError(this.#lastFailure, this.#spec.name, this.#spec.owner);
  }

  #nextBackoff(): number {
    return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** this.#failures++);
  }

  #attempt(asWaiter: boolean, now = this.#spec.core.scheduler.now()): void {
    const spec = this.#spec;
    this.#again = false;
    this.#sentAt = now;
    this.#latestRetryAt = Infinity;
    const clock = this.#clock;
    if (clock !== undefined) {
      // The message was the reply: granting at once, inside its delivery, saves a round trip per hand-off.
      const handed = clock.takeGrant(now, spec.core.settings.driftFactor);
      if (handed !== undefined) {
        // Hand-offs carry a fencing token, which is the grant of every lock that hands itself over.
        this.next({ granted: true, grant: handed.token as G, sentAt: handed.sentAt, handed: true });
        return;
      }
      // This client listens already, so a hand-off may come before this attempt's reply: be there for it.
      const { hub } = spec.core;
      if (!this.#expecting && spec.waitMs !== 0 && hub.channelCount > 0 && spec.handOff !== undefined && hub.listening(spec.handOff.channel)) this.#expect();
      clock.sending(now);
    }
    const guard = spec.core.restartGuard;
    if (guard !== undefined) {
      const holdOff = guard.holdOffMs(now);
      if (holdOff !== 0) {
        this.#holdOff(guard, holdOff);
        return;
      }
      this.#sentEpoch = spec.core.connection.epoch();
    }
    this.#retryTimer?.unsubscribe();
    this.#inFlight = true;
    send(spec.core, spec.attempt(asWaiter, now), this, now);
  }

  /** The server may have restarted without its locks: no attempt until the restart guard allows (see `RestartGuard`). */
  #holdOff(guard: RestartGuard, holdOff: number): void {
    this.#retryTimer?.unsubscribe();
    if (holdOff === CHECKING) guard.whenChecked(() => this.#trigger(false));
    else this.#retryTimer = this.#spec.core.scheduler.schedule(() => this.#trigger(false), holdOff);
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
    if (this.#ticket === undefined && spec.channel !== undefined && spec.policy !== undefined) {
      const graceMs = spec.graceMs ?? 0;
      const handOff = spec.handOff;
      if (handOff !== undefined && handOff.channel === spec.channel) {
        // Hand-offs come on the wake-up channel itself (a fair lock owner's): one place in its line, by member.
        this.#ticket = core.hub.join(spec.channel, handOff.member, spec.policy, this, { graceMs, need: spec.need, giveBack: handOff.giveBack });
      } else {
        this.#ticket = core.hub.join(spec.channel, waiterId, spec.policy, this, { graceMs, need: spec.need });
        if (handOff !== undefined)
          this.#handOffTicket = core.hub.join(handOff.channel, handOff.member, handOff.policy, this, { graceMs, giveBack: handOff.giveBack });
      }
    } else if (this.#ticket !== undefined) {
      if (this.#handOffTicket !== undefined || spec.handOff === undefined) this.#ticket.identify(waiterId);
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
    const now = core.scheduler.now();
    let pause = retryInMs >= 0 ? retryInMs : MAX_BLIND_WAIT_MS;
    if (this.#latestRetryAt !== Infinity) pause = Math.max(0, Math.min(pause, this.#latestRetryAt - now));
    if (pause < this.#deadline - now) {
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
