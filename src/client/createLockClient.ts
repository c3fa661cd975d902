import type { Observable } from 'rxjs';
import type { Closable, ClientCore, EngineSettings } from '../engine/ClientCore.js';
import { driftFor } from '../engine/ClientCore.js';
import { CommandTimeouts } from '../engine/CommandTimeouts.js';
import { EventBus, type LockEvent } from '../engine/events.js';
import { Renewer } from '../engine/Renewer.js';
import { WakeHub } from '../engine/WakeHub.js';
import { fairLockMethods, type FairLockMethods } from '../primitives/fairLock/methods.js';
import { latchMethods, type LatchMethods } from '../primitives/latch/methods.js';
import { leasedSemaphoreMethods, type LeasedSemaphoreMethods } from '../primitives/leasedSemaphore/methods.js';
import { lockMethods, type LockMethods } from '../primitives/lock/methods.js';
import { multiLockMethods, type MultiLockMethods } from '../primitives/multiLock/methods.js';
import { readWriteLockMethods, type ReadWriteLockMethods } from '../primitives/readWriteLock/methods.js';
import { semaphoreMethods, type SemaphoreMethods } from '../primitives/semaphore/methods.js';
import { redisStore } from '../store/redis/RedisStore.js';
import { acknowledgedByReplicas } from '../store/redis/acknowledgedByReplicas.js';
import { CLIENT_ID_PATTERN, newClientId, ownerIdGenerator } from '../util/ids.js';
import { LinkedSet } from '../util/LinkedSet.js';
import { monotonicScheduler } from '../util/monotonicScheduler.js';
import { checkClientOptions } from './checkClientOptions.js';
import type { LockClientOptions } from './LockClientOptions.js';

/**
 * A lock client: every primitive, bound to one store connection. It is the sum of the primitives'
 * method groups; its methods work when destructured.
 */
export interface LockClient
  extends LockMethods, FairLockMethods, ReadWriteLockMethods, SemaphoreMethods, LeasedSemaphoreMethods, LatchMethods, MultiLockMethods {
  /** This client's id, the `<clientId>` of every field it writes. */
  readonly clientId: string;
  /** Typed events: waiting, acquired, renewed, renew-failed, released, release-failed, lost, timeout, warning. */
  readonly events$: Observable<LockEvent>;
  /** Releases every lease this client holds, stops every timer and closes the connections it created. */
  close(): Promise<void>;
}

/** Creates a lock client on an ioredis client (`redis`) or a store (`store`). */
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
    close: () => core.close(),
  };
}

interface CoreWithClose extends ClientCore {
  closed: boolean;
  close(): Promise<void>;
}

function createCore(options: LockClientOptions): CoreWithClose {
  const {
    watchdogTimeoutMs = 30_000,
    scheduler = monotonicScheduler,
    clientId = newClientId(),
    keyPrefix = '',
    driftFactor = 0.01,
    driftMs = 2,
    commandTimeoutMs = 5_000,
    handoffMs = 100,
    fairLockWaiterTimeoutMs = 10_000,
    replicas = 0,
    replicaTimeoutMs = 1_000,
  } = options;
  if (!CLIENT_ID_PATTERN.test(clientId))
    throw new TypeError(`rxlock: createLockClient: option "clientId" must be 1-64 letters, digits, "_", "." or "-" (no ":"), got ${JSON.stringify(clientId)}`);
  const settings: EngineSettings = {
    watchdogTimeoutMs,
    driftFactor,
    driftMs,
    commandTimeoutMs,
    handoffMs,
    fairLockWaiterTimeoutMs,
    replicas,
    replicaTimeoutMs,
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
  const hub = new WakeHub(connection, scheduler);
  const renewer = new Renewer(connection, scheduler, { ttlMs: watchdogTimeoutMs, driftMs: driftFor(settings, watchdogTimeoutMs), batchSize: 100 });
  const timeouts = new CommandTimeouts(scheduler, commandTimeoutMs);
  const newOwner = ownerIdGenerator();
  const tracked = new LinkedSet<Closable>();
  let inFlight = 0;
  let drained: (() => void)[] = [];
  let closing: Promise<void> | undefined;

  const core: CoreWithClose = {
    clientId,
    keyPrefix,
    scheduler,
    connection,
    hub,
    renewer,
    events,
    settings,
    timeouts,
    // A data property, not a getter: V8 keeps an object literal with an accessor in dictionary mode, and every
    // primitive reads this object on every command.
    closed: false,
    newOwner,
    track: (closable) => tracked.add(closable),
    untrack: (node) => tracked.delete(node),
    begin() {
      inFlight++;
    },
    end() {
      if (--inFlight === 0 && drained.length > 0) {
        const waiting = drained;
        drained = [];
        for (const resolve of waiting) resolve();
      }
    },
    settled() {
      return inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => drained.push(resolve));
    },
    close() {
      // Closed before the holds end below, so that nothing their endings start (a retry that re-subscribes) opens a new one.
      core.closed = true;
      closing ??= (async () => {
        for (const closable of [...tracked]) closable.close();
        renewer.closeAll();
        await core.settled();
        hub.closeAll();
        renewer.stop();
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
