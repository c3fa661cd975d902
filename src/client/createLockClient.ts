import type { Observable, SchedulerLike } from 'rxjs';
import type { Closable, ClientCore, ClientLocal, EngineSettings } from '../engine/ClientCore.js';
import { driftFor } from '../engine/ClientCore.js';
import { CommandTimeouts } from '../engine/CommandTimeouts.js';
import { EventBus, type LockEvent } from '../engine/events.js';
import { Renewers } from '../engine/Renewers.js';
import { WakeHub } from '../engine/WakeHub.js';
import { GrantMailbox } from '../engine/handOff/GrantMailbox.js';
import { RestartGuard } from '../engine/RestartGuard.js';
import { fairLockMethods, type FairLockMethods } from '../primitives/fairLock/methods.js';
import { groupLockMethods, type GroupLockMethods } from '../primitives/groupLock/methods.js';
import { spinLockMethods, type SpinLockMethods } from '../primitives/spinLock/methods.js';
import { latchMethods, type LatchMethods } from '../primitives/latch/methods.js';
import { leasedSemaphoreMethods, type LeasedSemaphoreMethods } from '../primitives/leasedSemaphore/methods.js';
import { lockMethods, type LockMethods } from '../primitives/lock/methods.js';
import { multiLockMethods, type MultiLockMethods } from '../primitives/multiLock/methods.js';
import { readWriteLockMethods, type ReadWriteLockMethods } from '../primitives/readWriteLock/methods.js';
import { semaphoreMethods, type SemaphoreMethods } from '../primitives/semaphore/methods.js';
import { redisStore } from '../store/redis/RedisStore.js';
import { acknowledgedByReplicas } from '../store/redis/acknowledgedByReplicas.js';
import { newClientId, ownerIdGenerator } from '../util/ids.js';
import { LinkedSet } from '../util/LinkedSet.js';
import { backgroundScheduler } from '../util/backgroundScheduler.js';
import { InFlight } from '../util/InFlight.js';
import { KeepAlive } from '../engine/KeepAlive.js';
import { checkClientOptions } from './checkClientOptions.js';
import { CLIENT_DEFAULTS } from './defaults.js';
import type { LockClientOptions } from './LockClientOptions.js';

/**
 * A lock client: every primitive, bound to one store connection. It is the sum of the primitives'
 * method groups; its methods work when destructured.
 */
export interface LockClient
  extends
    LockMethods,
    FairLockMethods,
    ReadWriteLockMethods,
    SemaphoreMethods,
    LeasedSemaphoreMethods,
    LatchMethods,
    MultiLockMethods,
    GroupLockMethods,
    SpinLockMethods {
  /** This client's id, the `<clientId>` of every field it writes. */
  readonly clientId: string;
  /**
   * Typed events: waiting, attempt-failed, acquired, renewed, renew-failed, released, release-failed, lost,
   * timeout, warning. Costs nothing while nobody subscribes.
   *
   * @example
   * client.events$.subscribe((event) => {
   *   if (event.type === 'lost') console.warn(`lost ${event.name}: ${event.error.reason}`);
   *   if (event.type === 'warning') console.warn(event.message);
   * });
   */
  readonly events$: Observable<LockEvent>;
  /**
   * Releases every lease this client holds, stops every timer and closes the connections it created.
   *
   * @example
   * // Held streams error with LockLostError ('closed') and are released; waiting ones error with ClientClosedError.
   * await client.close();
   * await redis.quit(); // the Redis client you passed stays open until you close it
   */
  close(): Promise<void>;
}

/**
 * Creates a lock client on a Redis client (`redis`: ioredis 5/6, iovalkey, or a node-redis 5 client, cluster or sentinel) or a store (`store`).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createLockClient } from 'rxlock';
 *
 * const redis = new Redis();
 * const client = createLockClient({ redis });
 * await client.withLock('orders', () => processOrders());
 * await client.close();
 * await redis.quit();
 */
export function createLockClient(options: LockClientOptions): LockClient {
  checkClientOptions(options);
  const core = createCore(options);
  return {
    clientId: core.clientId,
    events$: core.events.events$,
    ...lockMethods(core),
    ...fairLockMethods(core),
    ...readWriteLockMethods(core),
    ...semaphoreMethods(core),
    ...leasedSemaphoreMethods(core),
    ...latchMethods(core),
    ...multiLockMethods(core),
    ...groupLockMethods(core),
    ...spinLockMethods(core),
    close: () => core.close(),
  };
}

interface CoreWithClose extends ClientCore {
  closed: boolean;
  close(): Promise<void>;
}

function createCore(options: LockClientOptions): CoreWithClose {
  const {
    watchdogTimeoutMs = CLIENT_DEFAULTS.watchdogTimeoutMs,
    scheduler = backgroundScheduler,
    clientId = newClientId(),
    keyPrefix = CLIENT_DEFAULTS.keyPrefix,
    driftFactor = CLIENT_DEFAULTS.driftFactor,
    driftMs = CLIENT_DEFAULTS.driftMs,
    commandTimeoutMs = CLIENT_DEFAULTS.commandTimeoutMs,
    handoffMs = CLIENT_DEFAULTS.handoffMs,
    fairLockWaiterTimeoutMs = CLIENT_DEFAULTS.fairLockWaiterTimeoutMs,
    replicas = CLIENT_DEFAULTS.replicas,
    replicaTimeoutMs = CLIENT_DEFAULTS.replicaTimeoutMs,
    restartGuardMs = CLIENT_DEFAULTS.restartGuardMs,
  } = options;
  const settings: EngineSettings = {
    watchdogTimeoutMs,
    driftFactor,
    driftMs,
    commandTimeoutMs,
    handoffMs,
    fairLockWaiterTimeoutMs,
    replicas,
    replicaTimeoutMs,
    restartGuardMs,
  };
  // A lease is trusted until its TTL minus this allowance; the watchdog renews it after a third of the TTL.
  const drift = driftFor(settings, watchdogTimeoutMs);
  if (drift >= watchdogTimeoutMs / 2) {
    throw new RangeError(
      `rxlock: createLockClient: options "driftMs" (${String(driftMs)}) and "driftFactor" (${String(driftFactor)}) allow ${String(drift)} ms of drift on a ${String(watchdogTimeoutMs)} ms lease ("watchdogTimeoutMs"); it must be under half of it, or no lease could be trusted`,
    );
  }
  const store = options.store ?? redisStore(options.redis, { replicaTimeoutMs });
  const connection = acknowledgedByReplicas(store.connect(scheduler), replicas, replicaTimeoutMs);
  const events = new EventBus();
  const handOffs = new GrantMailbox();
  const hub = new WakeHub(connection, scheduler, handOffs);
  // With the default scheduler, whose timers keep nothing alive, the client keeps the process alive while it holds or waits.
  const keepAlive = new KeepAlive(options.scheduler === undefined);
  const renewers = new Renewers(connection, scheduler, settings, keepAlive);
  const timeouts = new CommandTimeouts(scheduler, commandTimeoutMs);
  const newOwner = ownerIdGenerator();
  const tracked = new LinkedSet<Closable>();
  const locals = new Map<ClientLocal<unknown>, unknown>();
  const commands = new InFlight();
  const releases = new InFlight();
  let closing: Promise<void> | undefined;

  const core: CoreWithClose = {
    clientId,
    keyPrefix,
    scheduler,
    connection,
    hub,
    handOffs,
    restartGuard: restartGuardMs > 0 ? new RestartGuard(connection, scheduler, restartGuardMs) : undefined,
    renewers,
    events,
    settings,
    timeouts,
    // A data property, not a getter: V8 keeps an object literal with an accessor in dictionary mode, and every
    // primitive reads this object on every command.
    closed: false,
    newOwner,
    local<T>(local: ClientLocal<T>): T {
      if (!locals.has(local)) locals.set(local, local.create(core));
      return locals.get(local) as T;
    },
    track(closable) {
      keepAlive.hold();
      return tracked.add(closable);
    },
    untrack(node) {
      if (node.removed) return;
      tracked.delete(node);
      keepAlive.release();
    },
    begin(release = false) {
      (release ? releases : commands).begin();
      keepAlive.hold();
    },
    end(release = false) {
      keepAlive.release();
      (release ? releases : commands).end();
    },
    close() {
      // Closed before the holds end below, so that nothing their endings start (a retry that re-subscribes) opens a new one.
      core.closed = true;
      closing ??= (async () => {
        for (const closable of [...tracked]) closable.close();
        renewers.closeAll();
        // Every release, however long it takes (a release retries only while its lease could still exist)...
        await releases.idle();
        // ...and a moment for other commands (an attempt whose grant must be given back goes out by the user's client anyway).
        await idleWithin(commands, scheduler, CLOSE_GRACE_MS);
        hub.closeAll();
        handOffs.clear();
        locals.clear();
        renewers.stop();
        keepAlive.stop();
        timeouts.stop();
        await connection.close();
        events.complete();
      })();
      return closing;
    },
  };
  warnAboutEviction(core);
  return core;
}

/** How long `close()` waits for commands other than releases (attempts, their compensations) still in flight. */
const CLOSE_GRACE_MS = 50;

/** Resolves when `inFlight` is idle, or after `ms` on the scheduler, whichever comes first. */
function idleWithin(inFlight: InFlight, scheduler: SchedulerLike, ms: number): Promise<void> {
  if (inFlight.count === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = scheduler.schedule(resolve, ms);
    void inFlight.idle().then(() => {
      timer.unsubscribe();
      resolve();
    });
  });
}

/** Lock keys carry a TTL, so every policy but noeviction may evict them (volatile-* ones first of all). */
function warnAboutEviction(core: ClientCore): void {
  core.connection.evictionPolicy().then(
    (policy) => {
      if (policy === undefined || policy === 'noeviction') return;
      core.events.warn({
        type: 'warning',
        code: 'eviction-policy',
        time: core.scheduler.now(),
        message: `rxlock: the server's maxmemory-policy is ${policy}, which can evict lock keys under memory pressure; holders would learn of it only at their next renewal. Use noeviction for locks.`,
      });
    },
    () => undefined,
  );
}
