import type { SchedulerLike } from 'rxjs';
import type { StoreConnection } from '../store/Store.js';
import type { CommandTimeouts } from './CommandTimeouts.js';
import type { EventBus } from './events.js';
import type { Renewer } from './Renewer.js';
import type { WakeHub } from './WakeHub.js';
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
}

/** Something the client must end on `close()`: a held lease or a pending acquisition. */
export interface Closable {
  close(): void;
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
  readonly renewer: Renewer;
  readonly events: EventBus;
  readonly settings: EngineSettings;
  /** Times out commands that go unanswered (see `send`). */
  readonly timeouts: CommandTimeouts;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** A fresh owner id for a hold nobody named. */
  newOwner(): string;
  /** Registers something `close()` must end; `untrack` the returned node when it ended by itself. */
  track(closable: Closable): Tracked;
  /** Unregisters what `track` registered; again changes nothing. */
  untrack(tracked: Tracked): void;
  /** Resolves when every release sent so far has been answered (or has failed). */
  settled(): Promise<void>;
  /** Counts a command or release in flight, for `settled`: each `begin` must be matched by exactly one `end`. */
  begin(): void;
  end(): void;
}

/** The safety margin subtracted from a TTL to get a local deadline. */
export function driftFor(settings: EngineSettings, ttlMs: number): number {
  return Math.ceil(ttlMs * settings.driftFactor) + settings.driftMs;
}

/** The pause before a release or a lease change whose outcome is unknown is sent again. */
export function retryPauseMs(settings: EngineSettings): number {
  return Math.min(1_000, settings.commandTimeoutMs / 10);
}
