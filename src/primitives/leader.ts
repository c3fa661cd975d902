import { defer, Observable, retry, throwError, timer, type ObservableInput, type Subscriber } from 'rxjs';
import type { ClientCore } from '../engine/ClientCore.js';
import type { Hold } from '../engine/Hold.js';
import type { Lease } from '../engine/Lease.js';
import { ClientClosedError } from '../errors/ClientClosedError.js';
import { LockLostError } from '../errors/LockLostError.js';
import { assertDuration } from '../util/validate.js';
import { checkLockOptions, lockHold$, type LockOptions } from './lock/lock.js';
import { callSite } from '../util/describeValue.js';
import { abortable } from './abortable.js';
import { optionKeys } from '../util/optionKeys.js';
import { scoped$ } from './withLock.js';

/** Options of `leader$`. */
export interface LeaderOptions extends Pick<LockOptions, 'fencing' | 'signal' | 'watchdogTimeoutMs'> {
  /** Pause after a lost term before campaigning again. @default 0 */
  recampaignDelayMs?: number | undefined;
}

const LEADER_OPTION_KEYS = optionKeys<LeaderOptions>({ fencing: true, signal: true, watchdogTimeoutMs: true, recampaignDelayMs: true });

/**
 * The terms of one leadership: an ordinary cold Observable of a `Lease` per term won, which campaigns again by
 * itself after a lost term. `perTerm(work)` runs work in each term (what `leader$(name, work)` and
 * `withLease$(leader$(name), work)` return).
 */
export class LeaderTerms extends Observable<Lease> {
  readonly #core: ClientCore;
  readonly #name: string;
  readonly #options: LeaderOptions | undefined;

  constructor(core: ClientCore, name: string, options: LeaderOptions | undefined) {
    super((subscriber: Subscriber<Lease>) => campaigns$<Lease>(core, name, options, undefined).subscribe(subscriber));
    this.#core = core;
    this.#name = name;
    this.#options = options;
  }

  /**
   * Runs `work(term)` in each term: a lost term tears the work down and the next term runs it again. The
   * result emits the work's values and completes once a run completed within its term (leadership is then
   * released).
   */
  perTerm<T>(work: (term: Lease) => ObservableInput<T>): Observable<T> {
    return campaigns$(this.#core, this.#name, this.#options, work) as Observable<T>;
  }
}

/**
 * `leader$` as the client exposes it: campaigns for leadership while subscribed. Without `work`, emits a lease
 * for every term won (a term ends when its lease's `signal` aborts) and campaigns again after a loss. With
 * `work`, runs it in each term and emits its values: a lost term tears it down, the next term runs it again.
 * The client's `close()` ends it: with `LockLostError('closed')` during a term, with `ClientClosedError` while
 * campaigning or pausing between terms.
 */
export function leader$(core: ClientCore, name: string, options?: LeaderOptions): LeaderTerms;
export function leader$<T>(core: ClientCore, name: string, work: (term: Lease) => ObservableInput<T>, options?: LeaderOptions): Observable<T>;
export function leader$<T>(
  core: ClientCore,
  name: string,
  workOrOptions?: ((term: Lease) => ObservableInput<T>) | LeaderOptions,
  maybeOptions?: LeaderOptions,
): Observable<T> | LeaderTerms {
  if (typeof workOrOptions === 'function') return new LeaderTerms(core, name, maybeOptions).perTerm(workOrOptions);
  return new LeaderTerms(core, name, workOrOptions);
}

function campaigns$<T>(
  core: ClientCore,
  name: string,
  options: LeaderOptions | undefined,
  work: ((term: Lease) => ObservableInput<T>) | undefined,
): Observable<T | Lease> {
  return defer(() => {
    checkLockOptions(callSite('leader$', name), name, options, LEADER_OPTION_KEYS, core.settings);
    const delayMs = options?.recampaignDelayMs ?? 0;
    assertDuration(delayMs, 'recampaignDelayMs', 'leader$', { min: 0 });
    const term$ = lockHold$(core, name, { fencing: options?.fencing, signal: options?.signal, watchdogTimeoutMs: options?.watchdogTimeoutMs });
    const perTerm$: Observable<T | Lease> = work === undefined ? term$ : scoped$(term$, work, (_lease, run) => run(), settleTerm);
    return perTerm$.pipe(
      retry({
        // The signal and close() end the pause too: between terms no lock$ is subscribed to hear them.
        delay: (error: unknown) =>
          error instanceof LockLostError && error.reason !== 'closed'
            ? untilClosed(core, name, abortable(timer(delayMs, core.scheduler), options?.signal))
            : throwError(() => error),
      }),
    );
  });
}

function settleTerm(lease: Hold): Observable<void> {
  return lease.settle();
}

/** Errors with `ClientClosedError` as soon as the client closes (or at once, if it has). */
function untilClosed<T>(core: ClientCore, name: string, source: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    if (core.closed) {
      subscriber.error(new ClientClosedError(name));
      return undefined;
    }
    const tracked = core.track({ close: () => subscriber.error(new ClientClosedError(name)) });
    const subscription = source.subscribe(subscriber);
    return () => {
      core.untrack(tracked);
      subscription.unsubscribe();
    };
  });
}
