import { Observable, type Unsubscribable } from 'rxjs';
import { ClientClosedError } from '../errors/ClientClosedError.js';
import type { LockLostError } from '../errors/LockLostError.js';
import { acquire, type Cancellable, type LockSpec } from './acquisition.js';
import type { HandOffClock } from './handOff/HandOffClock.js';
import { confirmWindowMs, driftFor, type ClientCore, type Closable, type Tracked } from './ClientCore.js';
import { Hold, type HoldSpec, type LossListener } from './Hold.js';

/** Where a hold reports: the lease once granted, then at most one error (loss, timeout, close). */
export interface HoldObserver {
  next(lease: Hold): void;
  error(error: unknown): void;
}

/**
 * Starts a hold: acquires (waiting as the spec says), reports the grant as a `Hold`, and reports a
 * loss as an error. Returns what ends it (the hold itself, not a closure: one per lease): unsubscribing cancels
 * the wait (releasing a grant that arrives too late) or releases the lease.
 */
export function startHold<G>(spec: LockSpec<G>, sink: HoldObserver): Unsubscribable {
  const { core } = spec;
  if (core.closed) {
    sink.error(new ClientClosedError(spec.name));
    return ENDED;
  }
  const now = core.scheduler.now();
  const hold = new HoldLifecycle(spec, sink, now);
  hold.acquisition = acquire(spec, hold, now);
  return hold;
}

const ENDED: Unsubscribable = { unsubscribe: () => undefined };

/**
 * The lifecycle every lock-like primitive shares, as a cold Observable: subscribing acquires, the grant is
 * emitted once as a `Hold`, the stream errors if the lease is lost, and unsubscribing releases.
 */
export function hold$<G>(spec: LockSpec<G>): Observable<Hold> {
  return new Observable<Hold>((subscriber) => startHold(spec, subscriber));
}

/**
 * A hold from its first attempt to its end: one object, as holds are the hot path. Once granted it forgets
 * everything acquiring needed, so that a held lease keeps as little memory as possible.
 */
class HoldLifecycle<G> implements Closable, Unsubscribable, LossListener {
  acquisition: Cancellable | undefined;
  readonly #name: string;
  readonly #core: ClientCore;
  readonly #sink: HoldObserver;
  readonly #startedAt: number;
  #spec: LockSpec<G> | undefined;
  #tracked: Tracked | undefined;
  #lease: Hold | undefined;
  /** The hold spec `trusted` built for the grant that `granted` then receives. */
  #holdSpec: HoldSpec | undefined;
  /**
   * Where the mailbox expects hand-offs to this hold's acquisition, until the hold ends (kept past the grant: see
   * `GrantMailbox`). Set only once the acquisition may be queued: an uncontended hold keeps none of it.
   */
  #handOffChannel: string | undefined;
  #handOffMember: string | undefined;
  #handOffClock: HandOffClock | undefined;

  constructor(spec: LockSpec<G>, sink: HoldObserver, now: number) {
    this.#name = spec.name;
    this.#core = spec.core;
    this.#spec = spec;
    this.#sink = sink;
    this.#startedAt = now;
    this.#tracked = spec.core.track(this);
  }

  expecting(channel: string, member: string, clock: HandOffClock): void {
    this.#handOffChannel = channel;
    this.#handOffMember = member;
    this.#handOffClock = clock;
  }

  /**
   * Client close while still acquiring: the wait ends here (its queue entry left, its timers stopped) before
   * the sink hears of it, as not every sink unsubscribes on an error (a promise's does not).
   */
  close(): void {
    this.#untrack();
    this.acquisition?.cancel();
    this.acquisition = undefined;
    this.#ended();
    this.#sink.error(new ClientClosedError(this.#name));
  }

  granted(grant: G, sentAt: number, now: number, handed: boolean): void {
    this.#untrack();
    this.acquisition = undefined;
    const holdSpec = this.#holdSpec ?? this.#spec?.hold(grant, sentAt, this.#startedAt);
    const core = this.#spec?.core;
    this.#spec = undefined;
    this.#holdSpec = undefined;
    if (holdSpec === undefined || core === undefined) return;
    this.#lease = new Hold(holdSpec, sentAt, this.#startedAt, this, now, handed ? confirmWindowMs(core.settings) : undefined);
    this.#sink.next(this.#lease);
  }

  lost(error: LockLostError): void {
    this.#ended();
    this.#sink.error(error);
  }

  trusted(grant: G, sentAt: number, now: number, handed: boolean): boolean {
    const spec = this.#spec;
    if (spec === undefined) return false;
    const { core } = spec;
    this.#holdSpec = spec.hold(grant, sentAt, this.#startedAt);
    const { expiry } = this.#holdSpec;
    if (expiry.type === 'none') return true;
    let ttl = expiry.type === 'watchdog' ? (expiry.ttlMs ?? core.settings.watchdogTimeoutMs) : expiry.ms;
    if (handed) ttl = Math.min(ttl, confirmWindowMs(core.settings));
    return now < sentAt + ttl - driftFor(core.settings, ttl);
  }

  #untrack(): void {
    if (this.#tracked === undefined || this.#spec === undefined) return;
    this.#spec.core.untrack(this.#tracked);
    this.#tracked = undefined;
  }

  failed(error: Error): void {
    this.#untrack();
    this.#ended();
    this.#sink.error(error);
  }

  unsubscribe(): void {
    this.#untrack();
    this.acquisition?.cancel();
    this.#lease?.endQuietly();
    this.#ended();
    // Last, once the release or the leave is on its way: the spec may hand what it borrowed to the next hold.
    // Both are forgotten, so that a second call tells nobody again.
    const spec = this.#spec;
    const lease = this.#lease;
    this.#spec = undefined;
    this.#lease = undefined;
    if (lease === undefined) spec?.ended?.();
    else lease.subscriptionEnded();
  }

  /** The hold ended (after whatever ending it sent: a release, a leave): hand-offs to it are given back from now on. */
  #ended(): void {
    const channel = this.#handOffChannel;
    const clock = this.#handOffClock;
    if (channel === undefined || clock === undefined) return;
    this.#handOffChannel = undefined;
    this.#handOffClock = undefined;
    this.#core.handOffs.forget(channel, this.#handOffMember ?? '', clock);
    this.#handOffMember = undefined;
  }
}
