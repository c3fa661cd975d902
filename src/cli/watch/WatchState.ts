import { describeFailure } from '../connection/describeFailure.js';
import type { LockObject } from '../inspect/LockObject.js';
import type { LongestWait, WatchFrame, WatchRow } from './WatchFrame.js';

export interface WatchStateOptions {
  /** Handoff rates count the new holders seen over this long. @default 10000 */
  readonly rateWindowMs?: number | undefined;
  /** Objects that appeared or went are marked for this long; gone ones stay listed as long. @default 3000 */
  readonly highlightMs?: number | undefined;
}

/** Kinds whose holders have ids, so a change of holder can be seen. */
const HOLDER_KINDS = new Set<LockObject['kind']>(['lock', 'fairLock', 'readWriteLock', 'semaphore', 'leasedSemaphore']);
/** How long the last holders of a vanished object are remembered, to count the next holder as a handoff. */
const REMEMBER_HOLDERS_MS = 60_000;

/**
 * Folds successive listings into frames. Redis keeps no history, so watch derives it from what changed
 * between refreshes: a handoff is a holder id not among the object's previous holders (one refresh sees at
 * most the last holder, so the rate is a lower bound); a waiter's wait counts from the refresh that first
 * saw it, unless Redis recorded when it started.
 */
export class WatchState {
  readonly #rateWindowMs: number;
  readonly #highlightMs: number;
  #startedAt: number | undefined;
  #current = new Map<string, LockObject>();
  readonly #appearedAt = new Map<string, number>();
  readonly #gone = new Map<string, { object: LockObject; at: number }>();
  readonly #lastHolders = new Map<string, { ids: ReadonlySet<string>; at: number }>();
  readonly #handoffs = new Map<string, number[]>();
  #waitingSince = new Map<string, number>();
  #lastRows: WatchRow[] = [];

  constructor(options: WatchStateOptions = {}) {
    this.#rateWindowMs = options.rateWindowMs ?? 10_000;
    this.#highlightMs = options.highlightMs ?? 3_000;
  }

  /** Takes one listing made at `now` (ms, monotonic) and answers the frame to show. */
  update(objects: readonly LockObject[], now: number): WatchFrame {
    const first = this.#startedAt === undefined;
    this.#startedAt ??= now;
    const next = new Map(objects.map((object) => [object.name, object]));
    for (const [name, object] of this.#current) {
      if (!next.has(name)) {
        this.#gone.set(name, { object, at: now });
        this.#appearedAt.delete(name);
      }
    }
    for (const object of objects) {
      if (!first && !this.#current.has(object.name)) this.#appearedAt.set(object.name, now);
      this.#gone.delete(object.name);
      this.#countHandoffs(object, now);
    }
    this.#current = next;
    this.#trackWaits(objects, now);
    this.#forgetOld(now);
    const rows = [...objects.map((object) => this.#row(object, now)), ...[...this.#gone.values()].map(({ object }) => this.#goneRow(object))];
    rows.sort((a, b) => (a.object.name < b.object.name ? -1 : a.object.name > b.object.name ? 1 : 0));
    this.#lastRows = rows;
    const rates = rows.map((row) => row.handoffsPerSecond).filter((rate) => rate !== undefined);
    return {
      rows,
      held: objects.filter((object) => object.holders.length > 0).length,
      waiting: objects.reduce((sum, object) => sum + waitingIn(object), 0),
      handoffsPerSecond: this.#elapsedSeconds(now) === undefined ? undefined : rates.reduce((sum, rate) => sum + rate, 0),
      error: undefined,
    };
  }

  /** A refresh failed: the last rows, with the reason. */
  failed(error: unknown): WatchFrame {
    const rows = this.#lastRows;
    return {
      rows,
      held: rows.filter((row) => row.change !== 'gone' && row.object.holders.length > 0).length,
      waiting: rows.reduce((sum, row) => sum + (row.change === 'gone' ? 0 : waitingIn(row.object)), 0),
      handoffsPerSecond: undefined,
      error: describeFailure(error),
    };
  }

  #countHandoffs(object: LockObject, now: number): void {
    if (!HOLDER_KINDS.has(object.kind) || object.holders.length === 0) return;
    const ids = new Set(object.holders.map((holder) => holder.id));
    const previous = this.#lastHolders.get(object.name);
    if (previous !== undefined) {
      const arrived = [...ids].filter((id) => !previous.ids.has(id)).length;
      if (arrived > 0) {
        const times = this.#handoffs.get(object.name) ?? [];
        for (let i = 0; i < arrived; i++) times.push(now);
        this.#handoffs.set(object.name, times);
      }
    }
    this.#lastHolders.set(object.name, { ids, at: now });
  }

  #trackWaits(objects: readonly LockObject[], now: number): void {
    const since = new Map<string, number>();
    for (const object of objects) {
      for (const key of waitKeys(object)) since.set(key, this.#waitingSince.get(key) ?? now);
    }
    this.#waitingSince = since;
  }

  #forgetOld(now: number): void {
    for (const [name, { at }] of this.#gone) if (now - at >= this.#highlightMs) this.#gone.delete(name);
    for (const [name, at] of this.#appearedAt) if (now - at >= this.#highlightMs) this.#appearedAt.delete(name);
    for (const [name, { at }] of this.#lastHolders) if (!this.#current.has(name) && now - at >= REMEMBER_HOLDERS_MS) this.#lastHolders.delete(name);
    for (const [name, times] of this.#handoffs) {
      const recent = times.filter((at) => now - at < this.#rateWindowMs);
      if (recent.length === 0) this.#handoffs.delete(name);
      else this.#handoffs.set(name, recent);
    }
  }

  #elapsedSeconds(now: number): number | undefined {
    const elapsed = Math.min(this.#rateWindowMs, now - (this.#startedAt ?? now));
    return elapsed > 0 ? elapsed / 1_000 : undefined;
  }

  #row(object: LockObject, now: number): WatchRow {
    const seconds = this.#elapsedSeconds(now);
    return {
      object,
      change: this.#appearedAt.has(object.name) ? 'new' : undefined,
      longestWait: this.#longestWait(object, now),
      handoffsPerSecond: HOLDER_KINDS.has(object.kind) && seconds !== undefined ? (this.#handoffs.get(object.name)?.length ?? 0) / seconds : undefined,
    };
  }

  #goneRow(object: LockObject): WatchRow {
    return { object, change: 'gone', longestWait: undefined, handoffsPerSecond: undefined };
  }

  #longestWait(object: LockObject, now: number): LongestWait | undefined {
    const { queued, subscribedClients } = object.waiters;
    let longest: LongestWait | undefined;
    for (const waiter of queued) {
      const wait: LongestWait =
        waiter.waitedMs !== undefined
          ? { ms: waiter.waitedMs, who: waiter.id, exact: true }
          : { ms: now - (this.#waitingSince.get(waitKey(object.name, waiter.id)) ?? now), who: waiter.id, exact: false };
      if (longest === undefined || wait.ms > longest.ms) longest = wait;
    }
    if (longest === undefined && subscribedClients > 0) {
      longest = { ms: now - (this.#waitingSince.get(waitKey(object.name, CLIENTS)) ?? now), who: undefined, exact: false };
    }
    return longest;
  }
}

const CLIENTS = '\u0000clients';

function waitKey(name: string, who: string): string {
  return `${name}\u0000${who}`;
}

/** The waits watch must time itself: queued waiters without a recorded start, and subscribed clients. */
function waitKeys(object: LockObject): string[] {
  const { queued, subscribedClients } = object.waiters;
  const keys = queued.filter((waiter) => waiter.waitedMs === undefined).map((waiter) => waitKey(object.name, waiter.id));
  if (subscribedClients > 0) keys.push(waitKey(object.name, CLIENTS));
  return keys;
}

/** Waiters of one object: the queued ones if Redis knows them, else the subscribed clients. */
export function waitingIn(object: LockObject): number {
  return object.waiters.queuedCount > 0 ? object.waiters.queuedCount : object.waiters.subscribedClients;
}
