import type { SchedulerLike } from 'rxjs';
import type { StoreConnection } from '../store/Store.js';
import type { CommandTimeouts } from './CommandTimeouts.js';
import type { EventBus } from './events.js';
import type { Renewers } from './Renewers.js';
import type { WakeHub } from './WakeHub.js';
import type { GrantMailbox } from './handOff/GrantMailbox.js';
import type { RestartGuard } from './RestartGuard.js';
import { CONFIRM_HANDOFFS } from './handOff/handOffMessage.js';
import type { LinkedNode } from '../util/LinkedSet.js';

/** The client-wide settings the engine reads, with every default already applied. */
export interface EngineSettings {
  readonly watchdogTimeoutMs: number;
  readonly driftFactor: number;
  readonly driftMs: number;
  readonly commandTimeoutMs: number;
  readonly handoffMs: number;
  readonly fairLockWaiterTimeoutMs: number;
  readonly replicas: number;
  readonly replicaTimeoutMs: number;
  readonly restartGuardMs: number;
}

/** Something the client must end on `close()`: a held lease or a pending acquisition. */
export interface Closable {
  close(): void;
}

/**
 * Per-client state a primitive keeps (a pool of reusable owners, say): made on first use by `create`, owned by
 * the client, and dropped (after its `close`, if it has one) when the client closes.
 */
export interface ClientLocal<T> {
  create(core: ClientCore): T;
}

/** What `track` returns: a node of the client's set (a node rather than a closure: one per lease). */
export type Tracked = LinkedNode<Closable>;

/**
 * What every primitive of one client shares: its store connection, clock, wake-up hub, renewal
 * timer and event bus. Primitives receive it; users never see it.
 */
export interface ClientCore {
  readonly clientId: string;
  readonly keyPrefix: string;
  readonly scheduler: SchedulerLike;
  readonly connection: StoreConnection;
  readonly hub: WakeHub;
  /** Direct hand-offs to this client's acquisitions: who expects them, and the grants that came. */
  readonly handOffs: GrantMailbox;
  /** Holds grants back after the server restarted (`restartGuardMs`); undefined when off. */
  readonly restartGuard: RestartGuard | undefined;
  /** The watchdogs: one per watchdog timeout in use. */
  readonly renewers: Renewers;
  readonly events: EventBus;
  readonly settings: EngineSettings;
  /** Times out commands that go unanswered (see `send`). */
  readonly timeouts: CommandTimeouts;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** A fresh owner id for a hold nobody named. */
  newOwner(): string;
  /** This client's instance of `local`, made on first use; `close()` drops them all. */
  local<T>(local: ClientLocal<T>): T;
  /** Registers something `close()` must end; `untrack` the returned node when it ended by itself. */
  track(closable: Closable): Tracked;
  /** Unregisters what `track` registered; again changes nothing. */
  untrack(tracked: Tracked): void;
  /**
   * Counts a command in flight (`release`: a lease's release, which `close()` waits for): each `begin` must be
   * matched by exactly one `end` with the same `release`.
   */
  begin(release?: boolean): void;
  end(release?: boolean): void;
}

/** The safety margin subtracted from a TTL to get a local deadline. */
export function driftFor(settings: EngineSettings, ttlMs: number): number {
  return Math.ceil(ttlMs * settings.driftFactor) + settings.driftMs;
}

/**
 * How long a lock handed over directly lasts until its new holder confirms it: a waiter that cannot use it
 * (frozen, cut off, dead) keeps it from the others this long at most. 0 when there are no direct hand-offs.
 */
export function confirmWindowMs(settings: EngineSettings): number {
  return CONFIRM_HANDOFFS * settings.handoffMs;
}

/** The pause before a release or a lease change whose outcome is unknown is sent again. */
export function retryPauseMs(settings: EngineSettings): number {
  return Math.min(1_000, settings.commandTimeoutMs / 10);
}
