import type { SchedulerLike, Subscription } from 'rxjs';
import type { Script } from '../store/Script.js';
import type { ScriptCall, StoreConnection } from '../store/Store.js';
import { StoreError } from '../store/StoreError.js';
import type { Closable } from './ClientCore.js';
import type { KeepAlive } from './KeepAlive.js';

/** How holds of one kind are renewed together: one script call renews a batch of them. */
export interface RenewKind {
  readonly script: Script<readonly number[]>;
  /**
   * Keys and arguments for one call renewing `targets` to `ttlMs`. The reply has one 1 (renewed) or 0 (gone) per
   * target, or `RENEW_UNDECIDED` where the store could not tell (a Redlock quorum on which neither a majority renewed
   * the hold nor enough found it gone): that hold's renewal failed, the others' did not.
   */
  pack(targets: readonly RenewTarget[], ttlMs: number): { keys: string[]; args: (string | number)[] };
  /** One hold set to a fixed TTL of `ttlMs` (`multiLock$`), replying as a renewal of it would; only locks have it. */
  fix?(target: RenewTarget, ttlMs: number): ScriptCall<readonly number[]>;
}

/** A renewal's verdict for a hold the store could neither confirm nor find gone (only a Redlock quorum gives it). */
export const RENEW_UNDECIDED = -1;

/** The failure reported for a hold whose renewal came back `RENEW_UNDECIDED`. */
function undecided(): StoreError {
  return new StoreError('unavailable', 'Redlock: no majority of instances confirmed this hold’s renewal, nor found it gone', true);
}

/** What renewing one hold takes: its kind, its main key (batches are grouped by its cluster slot) and the kind-specific field (the owner's, for a lock). */
export interface RenewTarget {
  readonly renewKind: RenewKind;
  readonly key: string;
  readonly field: string;
}

/** One watchdog-renewed hold, as the renewer sees it. The client closes it through the renewer (see `closeAll`). */
export interface RenewEntry extends Closable {
  readonly renewTarget: RenewTarget;
  /** The latest time this hold is still known to be held; the renewer moves it forward. */
  heldUntil: number;
  /** The renewer's own slot: where this hold sits in its list while renewed, -1 when it is not. */
  renewIndex: number;
  renewed(): void;
  /** A renewal failed, but the deadline still allows retries. */
  renewFailed(error: unknown): void;
  /** The hold is gone (`not-held`) or could not be confirmed in time (`unconfirmed`). The renewer has dropped it. */
  lose(reason: 'not-held' | 'unconfirmed'): void;
}

/** How a hold handed over directly is confirmed: its key lasts `ttlMs` (less `driftMs` locally) until renewed `afterMs` after the grant. */
export interface ConfirmSettings {
  readonly ttlMs: number;
  readonly driftMs: number;
  readonly afterMs: number;
}

export interface RenewerSettings {
  readonly ttlMs: number;
  /** Subtracted from `sentAt + ttlMs` to get a deadline. */
  readonly driftMs: number;
  /** Holds per script call. Redisson uses 100. */
  readonly batchSize: number;
}

/**
 * The client's watchdog: one timer renews every held lease every third of the TTL, in batches of
 * `batchSize` per script (grouped by cluster slot), and one deadline timer fails the holds whose renewal
 * was not confirmed in time. Deadlines count from when a renewal was sent, not from its reply.
 */
export class Renewer {
  readonly #connection: StoreConnection;
  readonly #scheduler: SchedulerLike;
  readonly #settings: RenewerSettings;
  // An array whose members know their index: holds come and go many times a second, and adding or removing
  // one is then a push or a swap, with no hashing and no node per hold.
  readonly #entries: RenewEntry[] = [];
  #tick: Subscription | undefined;
  #watch: Subscription | undefined;
  #watchAt = Infinity;
  /** Batches sent again after a failed renewal, due within a tenth of the TTL. */
  readonly #retries = new Set<Subscription>();
  /** Holds handed over directly, to be confirmed (renewed) soon: one timer for all of them. */
  #confirms: RenewEntry[] = [];
  #confirmTimer: Subscription | undefined;

  readonly #keepAlive: KeepAlive | undefined;

  constructor(connection: StoreConnection, scheduler: SchedulerLike, settings: RenewerSettings, keepAlive?: KeepAlive) {
    this.#connection = connection;
    this.#scheduler = scheduler;
    this.#settings = settings;
    this.#keepAlive = keepAlive;
  }

  get size(): number {
    return this.#entries.length;
  }

  /**
   * Starts renewing a hold whose granting command was sent at `sentAt` (`now`: the caller's `scheduler.now()`).
   * A hold handed over directly lasts only `confirm.ttlMs` until renewed: it is renewed `confirm.afterMs` later
   * unless it ended by then, and is lost if that renewal is not confirmed in time.
   */
  add(entry: RenewEntry, sentAt: number, now: number, confirm?: ConfirmSettings): void {
    entry.renewIndex = this.#entries.push(entry) - 1;
    this.#keepAlive?.hold();
    if (this.#tick === undefined) this.#startTicking();
    if (confirm !== undefined && confirm.ttlMs < this.#settings.ttlMs) {
      entry.heldUntil = sentAt + confirm.ttlMs - confirm.driftMs;
      this.#armWatch(entry.heldUntil);
      this.#confirmSoon(entry, confirm.afterMs);
      return;
    }
    entry.heldUntil = sentAt + this.#settings.ttlMs - this.#settings.driftMs;
    this.#armWatch(entry.heldUntil);
    // The grant took over a third of the TTL to arrive (slow Redis): the next tick could come too late to renew in time.
    if (entry.heldUntil - now < (2 * this.#settings.ttlMs) / 3) this.#send([entry]);
  }

  #confirmSoon(entry: RenewEntry, afterMs: number): void {
    this.#confirms.push(entry);
    this.#confirmTimer ??= this.#scheduler.schedule(() => {
      this.#confirmTimer = undefined;
      const due = this.#confirms.filter(isRenewed);
      this.#confirms = [];
      this.#renew(due);
    }, afterMs);
  }

  // The last member moves into the freed slot (renewal order does not matter: batches are regrouped by slot).
  // The timers are not stopped here: holds come and go many times a second, and a tick or sweep that finds
  // nothing to do stops itself, which saves a timer per hold.
  remove(entry: RenewEntry): void {
    const entries = this.#entries;
    const index = entry.renewIndex;
    if (index < 0 || entries[index] !== entry) return;
    const last = entries.pop();
    if (last !== undefined && last !== entry) {
      entries[index] = last;
      last.renewIndex = index;
    }
    entry.renewIndex = -1;
    this.#keepAlive?.release();
  }

  /**
   * Client close: closes every hold it renews. The client tracks no watchdog hold itself (its slot here is
   * the only record of it, one object fewer per held lease); each close removes its hold from the list.
   */
  closeAll(): void {
    for (const entry of this.#entries.slice()) entry.close();
  }

  /** Stops every timer at once (client close). */
  stop(): void {
    for (const retry of this.#retries) retry.unsubscribe();
    this.#retries.clear();
    this.#confirmTimer?.unsubscribe();
    this.#confirmTimer = undefined;
    this.#confirms = [];
    for (const entry of this.#entries) entry.renewIndex = -1;
    this.#entries.length = 0;
    this.#tick?.unsubscribe();
    this.#tick = undefined;
    this.#watch?.unsubscribe();
    this.#watch = undefined;
    this.#watchAt = Infinity;
  }

  #startTicking(): void {
    const period = Math.max(1, Math.floor(this.#settings.ttlMs / 3));
    const tick = (): void => {
      if (this.#entries.length === 0) {
        this.#tick = undefined;
        return;
      }
      this.#renew(this.#entries.slice());
      this.#tick = this.#scheduler.schedule(tick, period);
    };
    this.#tick = this.#scheduler.schedule(tick, period);
  }

  #renew(entries: readonly RenewEntry[]): void {
    const groups = new Map<string, RenewEntry[]>();
    for (const entry of entries) {
      const { renewKind, key } = entry.renewTarget;
      const group = `${renewKind.script.sha1}/${this.#connection.slotOf(key)}`;
      let members = groups.get(group);
      if (members === undefined) groups.set(group, (members = []));
      members.push(entry);
    }
    const { batchSize } = this.#settings;
    for (const members of groups.values()) {
      for (let start = 0; start < members.length; start += batchSize) this.#send(members.slice(start, start + batchSize));
    }
  }

  #send(batch: readonly RenewEntry[]): void {
    const [first] = batch;
    if (first === undefined) return;
    const { ttlMs, driftMs } = this.#settings;
    const sentAt = this.#scheduler.now();
    const { renewKind } = first.renewTarget;
    const { keys, args } = renewKind.pack(
      batch.map((entry) => entry.renewTarget),
      ttlMs,
    );
    this.#connection.run(renewKind.script, keys, args).subscribe({
      next: (results) => {
        let failed: RenewEntry[] | undefined;
        batch.forEach((entry, index) => {
          if (!isRenewed(entry)) return;
          const result = results[index];
          if (result === 1) {
            entry.heldUntil = Math.max(entry.heldUntil, sentAt + ttlMs - driftMs);
            entry.renewed();
          } else if (result === RENEW_UNDECIDED) {
            (failed ??= []).push(entry);
          } else {
            this.remove(entry);
            entry.lose('not-held');
          }
        });
        if (failed !== undefined) this.#failed(failed, undecided());
      },
      error: (error: unknown) => this.#failed(batch, error),
    });
  }

  /** A renewal of these holds failed: each one hears of it, and the ones still renewed are sent again soon. */
  #failed(batch: readonly RenewEntry[], error: unknown): void {
    const alive = batch.filter(isRenewed);
    for (const entry of alive) entry.renewFailed(error);
    if (alive.length === 0) return;
    const retryMs = Math.max(1, Math.floor(this.#settings.ttlMs / 10));
    const retry = this.#scheduler.schedule(() => {
      this.#retries.delete(retry);
      this.#send(alive.filter(isRenewed));
    }, retryMs);
    this.#retries.add(retry);
  }

  #armWatch(at: number): void {
    if (at >= this.#watchAt) return;
    this.#watch?.unsubscribe();
    this.#watchAt = at;
    this.#watch = this.#scheduler.schedule(() => this.#sweep(), Math.max(0, at - this.#scheduler.now()));
  }

  #sweep(): void {
    this.#watch = undefined;
    this.#watchAt = Infinity;
    const now = this.#scheduler.now();
    let next = Infinity;
    for (const entry of this.#entries.slice()) {
      if (entry.heldUntil <= now) {
        this.remove(entry);
        entry.lose('unconfirmed');
      } else if (entry.heldUntil < next) {
        next = entry.heldUntil;
      }
    }
    if (next !== Infinity && this.#entries.length > 0) this.#armWatch(next);
  }
}

/** Whether the renewer still renews this hold. */
function isRenewed(entry: RenewEntry): boolean {
  return entry.renewIndex >= 0;
}
