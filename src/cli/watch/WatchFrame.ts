import type { LockObject } from '../inspect/LockObject.js';

/** How long a waiter has waited. `exact` when Redis recorded the start (rxlock's lock waiters); else watch saw it from then on. */
export interface LongestWait {
  readonly ms: number;
  readonly who: string | undefined;
  readonly exact: boolean;
}

export interface WatchRow {
  /** The object as last seen (for a gone one, before it went). */
  readonly object: LockObject;
  /** Appeared or went during the last few seconds. */
  readonly change: 'new' | 'gone' | undefined;
  readonly longestWait: LongestWait | undefined;
  /** New holders per second over the rate window; undefined for kinds without holders, or before two refreshes. */
  readonly handoffsPerSecond: number | undefined;
}

/** One refresh of `rxlock watch`. */
export interface WatchFrame {
  readonly rows: readonly WatchRow[];
  readonly held: number;
  readonly waiting: number;
  readonly handoffsPerSecond: number | undefined;
  /** Why this refresh failed (the rows are the last good ones). */
  readonly error: string | undefined;
}
