import { Observable, type Unsubscribable } from 'rxjs';
import { ClientClosedError } from '../errors/ClientClosedError.js';
import type { LockLostError } from '../errors/LockLostError.js';
import { acquire, type AcquireSpec, type Cancellable, type EndListener } from './acquisition.js';
import { driftFor, type Closable, type Tracked } from './ClientCore.js';
import { HeldLease, type HoldSpec, type LossListener } from './HeldLease.js';

/** What a primitive adds, once granted, to turn its grant into a held lease: a function, or an object with a `toHold` method (no closure per hold). */
export type GrantToHold<G> = ((grant: G, sentAt: number, startedAt: number) => HoldSpec) | HoldFactory<G>;

export interface HoldFactory<G> {
  toHold(grant: G, sentAt: number, startedAt: number): HoldSpec;
}

function toHoldSpec<G>(toHold: GrantToHold<G>, grant: G, sentAt: number, startedAt: number): HoldSpec {
  return typeof toHold === 'function' ? toHold(grant, sentAt, startedAt) : toHold.toHold(grant, sentAt, startedAt);
}

/** Where a hold reports: the lease once granted, then at most one error (loss, timeout, close). */
export interface HoldSink {
  next(lease: HeldLease): void;
  error(error: unknown): void;
}

/**
 * Starts a hold: acquires (waiting as the spec says), reports the grant as a `HeldLease`, and reports a
 * loss as an error. Returns what ends it (the hold itself, not a closure: one per lease): unsubscribing cancels
 * the wait (releasing a grant that arrives too late) or releases the lease.
 */
export function startHold<G>(spec: AcquireSpec<G>, toHold: GrantToHold<G>, sink: HoldSink): Unsubscribable {
  const { core } = spec;
  if (core.closed) {
    sink.error(new ClientClosedError(spec.name));
    return ENDED;
  }
  const now = core.scheduler.now();
  const hold = new PendingHold(spec, toHold, sink, now);
  hold.acquisition = acquire(spec, hold, now);
  return hold;
}

const ENDED: Unsubscribable = { unsubscribe: () => undefined };

/**
 * The lifecycle every lock-like primitive shares, as a cold Observable: subscribing acquires, the grant is
 * emitted once as a `HeldLease`, the stream errors if the lease is lost, and unsubscribing releases.
 */
export function hold$<G>(spec: AcquireSpec<G>, toHold: GrantToHold<G>): Observable<HeldLease> {
  return new Observable<HeldLease>((subscriber) => startHold(spec, toHold, subscriber));
}

/**
 * A hold from its first attempt to its end: one object, as holds are the hot path. Once granted it forgets
 * everything acquiring needed, so that a held lease keeps as little memory as possible.
 */
class PendingHold<G> implements Closable, Unsubscribable, LossListener {
  acquisition: Cancellable | undefined;
  readonly #name: string;
  readonly #sink: HoldSink;
  readonly #startedAt: number;
  #spec: AcquireSpec<G> | undefined;
  #toHold: GrantToHold<G> | undefined;
  #tracked: Tracked | undefined;
  #lease: HeldLease | undefined;
  /** The hold spec `trusted` built for the grant that `granted` then receives. */
  #holdSpec: HoldSpec | undefined;
  /** Who must hear that the hold ended, once the acquisition is over (see `AcquireSpec.endListener`). */
  #endListener: EndListener | undefined;

  constructor(spec: AcquireSpec<G>, toHold: GrantToHold<G>, sink: HoldSink, now: number) {
    this.#name = spec.name;
    this.#spec = spec;
    this.#toHold = toHold;
    this.#sink = sink;
    this.#startedAt = now;
    this.#tracked = spec.core.track(this);
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

  granted(grant: G, sentAt: number, now: number): void {
    this.#untrack();
    this.acquisition = undefined;
    const holdSpec = this.#holdSpec ?? (this.#toHold === undefined ? undefined : toHoldSpec(this.#toHold, grant, sentAt, this.#startedAt));
    this.#endListener = this.#spec?.endListener?.();
    this.#spec = undefined;
    this.#toHold = undefined;
    this.#holdSpec = undefined;
    if (holdSpec === undefined) return;
    this.#lease = new HeldLease(holdSpec, sentAt, this.#startedAt, this, now);
    this.#sink.next(this.#lease);
  }

  lost(error: LockLostError): void {
    this.#ended();
    this.#sink.error(error);
  }

  trusted(grant: G, sentAt: number, now: number): boolean {
    const spec = this.#spec;
    if (spec === undefined || this.#toHold === undefined) return false;
    const { core } = spec;
    this.#holdSpec = toHoldSpec(this.#toHold, grant, sentAt, this.#startedAt);
    const { expiry } = this.#holdSpec;
    if (expiry.type === 'none') return true;
    const ttl = expiry.type === 'watchdog' ? core.settings.watchdogTimeoutMs : expiry.ms;
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
  }

  /** Tells the end listener, after whatever ending the hold sent (a release, a leave) was sent. Listeners take a second call calmly. */
  #ended(): void {
    const listener = this.#endListener ?? this.#spec?.endListener?.();
    this.#endListener = undefined;
    listener?.ended();
  }
}
