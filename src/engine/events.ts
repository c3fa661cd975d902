import { Observable, Subject } from 'rxjs';
import type { LockError } from '../errors/LockError.js';
import type { LockLostError } from '../errors/LockLostError.js';

/** Which primitive an event is about. */
export type LockKind = 'lock' | 'spinLock' | 'fairLock' | 'readLock' | 'writeLock' | 'semaphore' | 'leasedSemaphore' | 'latch' | 'multiLock' | 'groupLock';

/** What every event about a hold or an acquisition carries (every `LockEvent` but `warning`). */
export interface EventBase {
  /** The lock name as the caller gave it (without the client's key prefix). */
  readonly name: string;
  /** Which primitive the event is about. */
  readonly kind: LockKind;
  /** The owner id of the hold (`<owner>` in the `<clientId>:<owner>` field). */
  readonly owner: string;
  /** `scheduler.now()` when it happened. */
  readonly time: number;
}

/**
 * Everything a client reports, told apart by `type`. The library never writes to the console: subscribe to
 * `events$` to log or measure.
 */
export type LockEvent =
  | (EventBase & {
      /** An acquisition found the lock taken and started waiting (once per acquisition). */
      readonly type: 'waiting';
    })
  | (EventBase & {
      /** An attempt failed for a backend reason (Redis unreachable, too slow, out of memory); the acquisition retries while it may. */
      readonly type: 'attempt-failed';
      /** Why the attempt failed. */
      readonly error: Error;
    })
  | (EventBase & {
      /** The lock (or permits) was granted. */
      readonly type: 'acquired';
      /** How long the acquisition took, from subscription to grant, in ms. */
      readonly waitedMs: number;
      /** The grant's fencing token, or `undefined` when it was not asked for (`fencing: true`). */
      readonly token: number | undefined;
    })
  | (EventBase & {
      /** The watchdog renewed the hold. */
      readonly type: 'renewed';
    })
  | (EventBase & {
      /** A renewal failed; the watchdog retries while the lease's deadline allows, and the hold is lost after it. */
      readonly type: 'renew-failed';
      /** Why the renewal failed. */
      readonly error: Error;
    })
  | (EventBase & {
      /** The hold was released, and Redis confirmed it. */
      readonly type: 'released';
      /** How long it was held, from grant to release, in ms. */
      readonly heldMs: number;
    })
  | (EventBase & {
      /**
       * The release failed or its outcome stayed unknown (after its retries): what the hold had may stay taken in
       * Redis until it expires, which a `semaphore`'s permits never do.
       */
      readonly type: 'release-failed';
      /** Why the release failed. */
      readonly error: Error;
    })
  | (EventBase & {
      /** The hold was lost (its stream errors with the same `LockLostError`), or its release found it already gone. */
      readonly type: 'lost';
      /** Why it was lost: `error.reason` is `not-held`, `unconfirmed`, `expired` or `closed`. */
      readonly error: LockLostError;
    })
  | (EventBase & {
      /** An acquisition gave up at its `waitMs`. */
      readonly type: 'timeout';
      /** The `LockTimeoutError` the acquisition's stream errors with. */
      readonly error: LockError;
    })
  | {
      /** Something about the server that puts locks at risk; reported once per client, and replayed to late subscribers. */
      readonly type: 'warning';
      /** `eviction-policy`: the server may evict lock keys under memory pressure (its `maxmemory-policy` is not `noeviction`). */
      readonly code: 'eviction-policy';
      /** The warning in words, for a log. */
      readonly message: string;
      /** `scheduler.now()` when it was found. */
      readonly time: number;
    };

/** The `type` of a `LockEvent`: `waiting`, `attempt-failed`, `acquired`, `renewed`, `renew-failed`, `released`, `release-failed`, `lost`, `timeout` or `warning`. */
export type LockEventType = LockEvent['type'];

/** A hot stream of events that costs nothing while nobody listens. Warnings are replayed to late subscribers. */
export class EventBus {
  readonly #subject = new Subject<LockEvent>();
  readonly #warnings: LockEvent[] = [];
  readonly events$: Observable<LockEvent> = new Observable<LockEvent>((subscriber) => {
    for (const warning of this.#warnings) subscriber.next(warning);
    return this.#subject.subscribe(subscriber);
  });

  /** Whether anyone listens; callers skip building events when nobody does. */
  get observed(): boolean {
    return this.#subject.observed;
  }

  warn(event: LockEvent & { type: 'warning' }): void {
    this.#warnings.push(event);
    this.#subject.next(event);
  }

  emit(event: LockEvent): void {
    if (this.#subject.observed) this.#subject.next(event);
  }

  complete(): void {
    this.#subject.complete();
  }
}
