import { Observable, Subject } from 'rxjs';
import type { LockError } from '../errors/LockError.js';
import type { LockLostError } from '../errors/LockLostError.js';

/** Which primitive an event is about. */
export type LockKind = 'lock' | 'fairLock' | 'readLock' | 'writeLock' | 'semaphore' | 'leasedSemaphore' | 'latch' | 'multiLock';

interface EventBase {
  /** The lock name as the caller gave it (without the client's key prefix). */
  readonly name: string;
  readonly kind: LockKind;
  /** The owner id of the hold (`<owner>` in the `<clientId>:<owner>` field). */
  readonly owner: string;
  /** `scheduler.now()` when it happened. */
  readonly time: number;
}

/** Everything a client reports. The library never writes to the console: subscribe to `events$` to log or measure. */
export type LockEvent =
  | (EventBase & { readonly type: 'waiting' })
  | (EventBase & { readonly type: 'acquired'; readonly waitedMs: number; readonly token: number | undefined })
  | (EventBase & { readonly type: 'renewed' })
  | (EventBase & { readonly type: 'renew-failed'; readonly error: Error })
  | (EventBase & { readonly type: 'released'; readonly heldMs: number })
  | (EventBase & { readonly type: 'release-failed'; readonly error: Error })
  | (EventBase & { readonly type: 'lost'; readonly error: LockLostError })
  | (EventBase & { readonly type: 'timeout'; readonly error: LockError })
  | { readonly type: 'warning'; readonly code: 'eviction-policy'; readonly message: string; readonly time: number };

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
