import type { SchedulerLike } from 'rxjs';
import type { StoreConnection } from '../store/Store.js';
import { driftFor, type EngineSettings } from './ClientCore.js';
import { Renewer } from './Renewer.js';
import type { KeepAlive } from './KeepAlive.js';

/** Holds per renewal script call, as Redisson's `lockWatchdogBatchSize`. */
const BATCH_SIZE = 100;

/**
 * The client's watchdogs: one `Renewer` per watchdog timeout in use (the client's, and any a call asked for
 * with its own `watchdogTimeoutMs`), each with one timer for all of its holds.
 */
export class Renewers {
  readonly #connection: StoreConnection;
  readonly #scheduler: SchedulerLike;
  readonly #settings: EngineSettings;
  readonly #keepAlive: KeepAlive | undefined;
  readonly #byTimeout = new Map<number, Renewer>();

  /** `keepAlive` hears of every hold that starts and stops being renewed. */
  constructor(connection: StoreConnection, scheduler: SchedulerLike, settings: EngineSettings, keepAlive?: KeepAlive) {
    this.#connection = connection;
    this.#scheduler = scheduler;
    this.#settings = settings;
    this.#keepAlive = keepAlive;
  }

  /** The watchdog for holds whose key lasts `ttlMs` between renewals. */
  for(ttlMs: number): Renewer {
    let renewer = this.#byTimeout.get(ttlMs);
    if (renewer === undefined) {
      renewer = new Renewer(this.#connection, this.#scheduler, { ttlMs, driftMs: driftFor(this.#settings, ttlMs), batchSize: BATCH_SIZE }, this.#keepAlive);
      this.#byTimeout.set(ttlMs, renewer);
    }
    return renewer;
  }

  /** Holds renewed now, over every watchdog. */
  get size(): number {
    let size = 0;
    for (const renewer of this.#byTimeout.values()) size += renewer.size;
    return size;
  }

  /** Client close: closes every renewed hold. */
  closeAll(): void {
    for (const renewer of this.#byTimeout.values()) renewer.closeAll();
  }

  /** Stops every timer at once (client close). */
  stop(): void {
    for (const renewer of this.#byTimeout.values()) renewer.stop();
    this.#byTimeout.clear();
  }
}
