import type { SchedulerLike } from 'rxjs';
import type { StoreConnection } from '../store/Store.js';

/** `holdOffMs` while the server is being looked at: ask again once `whenChecked` calls back. */
export const CHECKING = -1;

/**
 * The client's restart guard (`restartGuardMs`): a server that restarted without persistence lost every lock,
 * and a holder learns of it only at its next renewal. Until the server has been up `guardMs` (set it to the
 * longest lease a client may hold), this client grants nothing, so that no two holders overlap across the
 * restart. The server is looked at (`INFO server`: its uptime) before the first attempt and after every
 * connection loss (`epoch`), so the check costs a round trip only then.
 */
export class RestartGuard {
  readonly #connection: StoreConnection;
  readonly #scheduler: SchedulerLike;
  readonly #guardMs: number;
  #checkedEpoch = -1;
  #grantsFrom = 0;
  #waiting: (() => void)[] | undefined;

  constructor(connection: StoreConnection, scheduler: SchedulerLike, guardMs: number) {
    this.#connection = connection;
    this.#scheduler = scheduler;
    this.#guardMs = guardMs;
  }

  /** How long from `now` before attempts may be granted; `CHECKING` while that is being found out. */
  holdOffMs(now: number): number {
    const epoch = this.#connection.epoch();
    if (epoch !== this.#checkedEpoch) {
      this.#check(epoch);
      return CHECKING;
    }
    return Math.max(0, this.#grantsFrom - now);
  }

  /** Whether a grant to an attempt sent at `sentEpoch` can be trusted: no connection was lost since (the server may be a new one). */
  trusts(sentEpoch: number): boolean {
    return this.#connection.epoch() === sentEpoch && sentEpoch === this.#checkedEpoch;
  }

  /** Calls back once the check under way is done (at once if none is). */
  whenChecked(callback: () => void): void {
    if (this.#waiting === undefined) callback();
    else this.#waiting.push(callback);
  }

  #check(epoch: number): void {
    if (this.#waiting !== undefined) return;
    this.#waiting = [];
    const done = (): void => {
      const waiting = this.#waiting ?? [];
      this.#waiting = undefined;
      for (const callback of waiting) callback();
    };
    const serverInfo = this.#connection.serverInfo?.();
    if (serverInfo === undefined) {
      // A store that cannot say (Redlock's quorum): nothing to hold back.
      this.#checkedEpoch = epoch;
      done();
      return;
    }
    serverInfo.subscribe({
      next: ({ uptimeMs }) => {
        this.#grantsFrom = this.#scheduler.now() + Math.max(0, this.#guardMs - uptimeMs);
        this.#checkedEpoch = epoch;
      },
      complete: done,
      // Not answered: the next attempt asks again; meanwhile it fails or waits as any command would.
      error: done,
    });
  }
}
