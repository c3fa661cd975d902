import { defer, Observable, retry, throwError, timer, type OperatorFunction } from 'rxjs';
import type { ClientCore } from '../engine/ClientCore.js';
import type { Lease } from '../engine/Lease.js';
import { ClientClosedError } from '../errors/ClientClosedError.js';
import { LockLostError } from '../errors/LockLostError.js';
import { assertDuration } from '../util/validate.js';
import { checkLockOptions, lockHold$, type LockOptions } from './lock/lock.js';
import { callSite } from '../util/describeValue.js';
import { abortable } from './abortable.js';

/** Options of `leader$`. */
export interface LeaderOptions extends Pick<LockOptions, 'fencing' | 'signal'> {
  /** Pause after a lost term before campaigning again. @default 0 */
  recampaignDelayMs?: number | undefined;
}

const LEADER_OPTION_KEYS = ['fencing', 'signal', 'recampaignDelayMs'];

/**
 * Campaigns for leadership while subscribed: emits a lease for every term won, and after a loss waits
 * and campaigns again. The client's `close()` ends it: with `LockLostError('closed')` during a term, with
 * `ClientClosedError` while campaigning or pausing between terms. `pipe` puts the re-campaign after the operators you add, so in
 * `leader$('scheduler').pipe(switchMap(runDuties))` a loss tears `runDuties` down (the error passes
 * through `switchMap`) and the next term starts them again.
 */
export function leader$(core: ClientCore, name: string, options?: LeaderOptions): Observable<Lease> {
  return new LeaderObservable(core, name, options, []);
}

class LeaderObservable extends Observable<Lease> {
  readonly #core: ClientCore;
  readonly #name: string;
  readonly #options: LeaderOptions | undefined;
  readonly #operators: readonly OperatorFunction<unknown, unknown>[];

  constructor(core: ClientCore, name: string, options: LeaderOptions | undefined, operators: readonly OperatorFunction<unknown, unknown>[]) {
    super((subscriber) => this.#campaigns().subscribe(subscriber as never));
    this.#core = core;
    this.#name = name;
    this.#options = options;
    this.#operators = operators;
  }

  // Callers see Observable<Lease>'s own typed overloads; this single implementation has to accept them all.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override pipe(...operators: OperatorFunction<any, any>[]): Observable<any> {
    return new LeaderObservable(this.#core, this.#name, this.#options, [...this.#operators, ...operators]);
  }

  #campaigns(): Observable<unknown> {
    const core = this.#core;
    const name = this.#name;
    const options = this.#options;
    return defer(() => {
      checkLockOptions(callSite('leader$', name), name, options, LEADER_OPTION_KEYS);
      const delayMs = options?.recampaignDelayMs ?? 0;
      assertDuration(delayMs, 'recampaignDelayMs', 'leader$', { min: 0 });
      const term$ = lockHold$(core, name, { fencing: options?.fencing, signal: options?.signal }) as Observable<unknown>;
      const piped = this.#operators.reduce((source, operator) => operator(source), term$);
      return piped.pipe(
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
