/**
 * Lock clients in a child process, for the fault tests: the parent forks this file (through tsx), sends
 * a `WorkerConfig`, and receives every critical section as it ends. Run as a child, the file starts the
 * clients; imported, it only exports the parent's side (`spawnWorker`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asyncScheduler, type Subscription } from 'rxjs';
import { createLockClient, LockBackendError, LockLostError, LockTimeoutError, type LockClient, type LockEvent } from '../../src/index.js';
import { lockConnection, type ClosableRedis } from './clientLibrary.js';
import { CLOCK_OFFSET, FencedResource, now, SectionRecorder, seededRandom, type SectionRecord } from './checker.js';

/** What one worker process runs. */
export interface WorkerConfig {
  /** Names the process in records: holders are `<name>/c<i>`. */
  readonly name: string;
  /** The lock server's port (or the port of a proxy in front of it). */
  readonly redisPort: number;
  /** The fenced resource's port; required by `loop` mode. */
  readonly resourcePort?: number;
  readonly seed: number;
  readonly clients: number;
  readonly watchdogTimeoutMs: number;
  readonly commandTimeoutMs?: number;
  /** The lock clients' `driftMs`. @default the library's */
  readonly driftMs?: number;
  /** `default`: the library's monotonic scheduler; `date`: rxjs's asyncScheduler, whose now() is `Date.now()` (a control). */
  readonly scheduler?: 'default' | 'date';
  /** Fake `Date` in this process: after `afterMs`, the wall clock reads `offsetMs` away from the real one. */
  readonly clockJumps?: readonly { readonly afterMs: number; readonly offsetMs: number }[];
  /**
   * `loop`: every client runs critical sections on random `locks` until stopped (or `sections` each).
   * `hold`: client i takes `locks[i]` and holds it until stopped; then the `waits` run.
   */
  readonly mode: 'loop' | 'hold';
  readonly locks: readonly string[];
  /** Per client (loop mode). Undefined: until stopped. */
  readonly sections?: number;
  /** How long a section's work takes: uniform in [min, max] ms. */
  readonly workMs?: readonly [number, number];
  /** Some sections outlast their lease: `chance` of them take `ms`, and half of those ignore the loss of the lock. */
  readonly longWork?: { readonly chance: number; readonly ms: number };
  /** Hold mode: tries that run while holding, each reported with how long it took. */
  readonly waits?: readonly { readonly lock: string; readonly waitMs: number; readonly afterMs: number }[];
}

/** What a worker tells its parent. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | {
      readonly type: 'enter';
      readonly lock: string;
      readonly holder: string;
      readonly token: number;
      readonly start: number;
      readonly deadline: number;
      /** The child's `CLOCK_OFFSET` (see `SectionRecord.clockOffset`). */
      readonly clockOffset: number;
    }
  | { readonly type: 'section'; readonly record: SectionRecord }
  | { readonly type: 'lost'; readonly lock: string; readonly holder: string; readonly reason: string; readonly at: number }
  | { readonly type: 'waited'; readonly lock: string; readonly outcome: string; readonly ms: number }
  | { readonly type: 'error'; readonly holder: string; readonly lock: string; readonly error: string }
  | { readonly type: 'done'; readonly stats: WorkerStats };

export interface WorkerStats {
  /** Critical sections entered. */
  readonly sections: number;
  /** Acquisitions that ended in `LockLostError` (a lease lost, or a grant that came too late to be handed out). */
  readonly lost: number;
  readonly timeouts: number;
  /** Acquisitions that Redis left unanswered for commandTimeoutMs: `LockBackendError('unavailable')`, as designed. */
  readonly unavailable: number;
  /** Errors other than the loss of a lock or Redis not answering that reached the caller (withLock rejected with them). */
  readonly errors: number;
  /** `events$` counts by type. */
  readonly events: Readonly<Record<string, number>>;
  /** The longest wait of an acquisition, from its `acquired` events. */
  readonly maxWaitedMs: number;
}

// ---------------------------------------------------------------- parent side

/** A worker process as the test sees it. */
export interface Worker {
  readonly name: string;
  readonly pid: number;
  /** Finished sections, in the order they ended. */
  readonly sections: SectionRecord[];
  /** Sections entered and not yet finished, by `holder lock token`. */
  readonly open: Map<string, WorkerMessage & { type: 'enter' }>;
  readonly messages: WorkerMessage[];
  /** Resolves with the first message that `matches`, now or later. */
  next(matches: (message: WorkerMessage) => boolean, timeoutMs?: number): Promise<WorkerMessage>;
  /** Stops the clients and waits for the process to end by itself (proof that nothing was left open). */
  stop(timeoutMs?: number): Promise<WorkerStats>;
  /** SIGKILL. Sections still open end as `crashed` at the kill. Returns the time of the kill. */
  kill(): Promise<number>;
}

const entry = fileURLToPath(import.meta.url);

/** Forks a worker and resolves once its clients are ready. */
export async function spawnWorker(config: WorkerConfig): Promise<Worker> {
  const child: ChildProcess = fork(entry, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: WorkerMessage[] = [];
  const sections: SectionRecord[] = [];
  const open = new Map<string, WorkerMessage & { type: 'enter' }>();
  const waiting = new Set<{ matches: (message: WorkerMessage) => boolean; resolve: (message: WorkerMessage) => void }>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.on('message', (message: WorkerMessage) => {
    messages.push(message);
    if (message.type === 'enter') open.set(`${message.holder} ${message.lock} ${message.token}`, message);
    if (message.type === 'section') {
      open.delete(`${message.record.holder} ${message.record.lock} ${message.record.token}`);
      sections.push(message.record);
    }
    for (const waiter of [...waiting]) {
      if (waiter.matches(message)) {
        waiting.delete(waiter);
        waiter.resolve(message);
      }
    }
  });
  const next = (matches: (message: WorkerMessage) => boolean, timeoutMs = 30_000): Promise<WorkerMessage> => {
    const seen = messages.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        matches,
        resolve: (message: WorkerMessage) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        waiting.delete(waiter);
        reject(new Error(`worker ${config.name}: no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.add(waiter);
    });
  };
  child.send(config);
  const died = exited.then((code) => {
    throw new Error(`worker ${config.name} exited with ${code} before it was ready (its stderr is above)`);
  });
  await Promise.race([next((message) => message.type === 'ready'), died]);
  died.catch(() => undefined);
  return {
    name: config.name,
    pid: child.pid ?? -1,
    sections,
    open,
    messages,
    next,
    async stop(timeoutMs = 15_000) {
      child.send({ type: 'stop' });
      const done = (await next((message) => message.type === 'done', timeoutMs)) as WorkerMessage & { type: 'done' };
      const patience = new AbortController();
      const code = await Promise.race([exited, sleep(5_000, 'still running' as const, { signal: patience.signal })]);
      patience.abort();
      if (code === 'still running') {
        child.kill('SIGKILL');
        throw new Error(`worker ${config.name} did not exit by itself after closing its clients: something was left open`);
      }
      if (code !== 0) throw new Error(`worker ${config.name} exited with ${code}`);
      return done.stats;
    },
    async kill() {
      const at = now();
      child.kill('SIGKILL');
      await exited;
      for (const [key, entered] of open) {
        open.delete(key);
        sections.push({
          lock: entered.lock,
          holder: entered.holder,
          owner: '',
          token: entered.token,
          start: entered.start,
          // The kill's time on the child's clock, so that the whole record is on one clock.
          end: at - CLOCK_OFFSET + entered.clockOffset,
          observedEnd: at - CLOCK_OFFSET + entered.clockOffset,
          outcome: 'crashed',
          clockOffset: entered.clockOffset,
        });
      }
      return at;
    },
  };
}

// ---------------------------------------------------------------- child side

function send(message: WorkerMessage): void {
  process.send?.(message);
}

function fakeClock(jumps: WorkerConfig['clockJumps']): void {
  if (jumps === undefined || jumps.length === 0) return;
  const RealDate = Date;
  let offset = 0;
  class JumpingDate extends RealDate {
    constructor(...args: [] | [string | number | Date]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(args[0]);
    }

    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = JumpingDate as DateConstructor;
  for (const jump of jumps) setTimeout(() => (offset = jump.offsetMs), jump.afterMs).unref();
}

async function runWorker(config: WorkerConfig): Promise<void> {
  fakeClock(config.clockJumps);
  const random = seededRandom(config.seed);
  const events: Record<string, number> = {};
  let maxWaitedMs = 0;
  const connections: ClosableRedis[] = [];
  const clients: LockClient[] = [];
  const eventSubscriptions: Subscription[] = [];
  for (let i = 0; i < config.clients; i++) {
    // RXLOCK_CLIENT (inherited from the test run) picks ioredis or node-redis.
    const redis = lockConnection(config.redisPort, { retryMs: 20 });
    connections.push(redis);
    const client = createLockClient({
      redis,
      clientId: `${config.name}-c${i}`,
      watchdogTimeoutMs: config.watchdogTimeoutMs,
      ...(config.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: config.commandTimeoutMs }),
      ...(config.driftMs === undefined ? {} : { driftMs: config.driftMs }),
      ...(config.scheduler === 'date' ? { scheduler: asyncScheduler } : {}),
    });
    eventSubscriptions.push(
      client.events$.subscribe((event: LockEvent) => {
        events[event.type] = (events[event.type] ?? 0) + 1;
        if (event.type === 'acquired') maxWaitedMs = Math.max(maxWaitedMs, event.waitedMs);
      }),
    );
    clients.push(client);
  }
  const stats = { sections: 0, lost: 0, timeouts: 0, unavailable: 0, errors: 0 };
  let stopping = false;
  // Stopping cancels the acquisitions still waiting; a section in progress ends (and is released) at once.
  const stop = new AbortController();
  const stopped = new Promise<void>((resolve) =>
    process.on('message', (message: { type?: string }) => {
      if (message.type === 'stop') {
        stopping = true;
        stop.abort(new Error('worker stopping'));
        resolve();
      }
    }),
  );
  send({ type: 'ready' });

  if (config.mode === 'loop') {
    const resource = new FencedResource(config.resourcePort ?? 0);
    const [minWork, maxWork] = config.workMs ?? [0, 2];
    // Works that outlived their lock (zombies) still write; the resource stays open until they are done.
    const works = new Set<Promise<void>>();
    const loop = async (client: LockClient, index: number): Promise<void> => {
      const holder = `${config.name}/c${index}`;
      for (let done = 0; !stopping && (config.sections === undefined || done < config.sections); done++) {
        const lock = config.locks[Math.floor(random() * config.locks.length)] ?? 'lock';
        const { longWork } = config;
        const long = longWork !== undefined && random() < longWork.chance;
        const workMs = long ? longWork.ms : minWork + random() * (maxWork - minWork);
        const honoursLoss = !long || random() < 0.5;
        try {
          await client.withLock(
            lock,
            (lease) => {
              const recorder = new SectionRecorder(lock, holder, lease, (record) => send({ type: 'section', record }));
              stats.sections++;
              send({ type: 'enter', lock, holder, token: lease.token ?? -1, start: recorder.start, deadline: lease.deadline, clockOffset: CLOCK_OFFSET });
              const work = (async () => {
                await resource.write(lock, lease.token ?? -1, holder);
                await sleep(workMs, undefined, honoursLoss ? { signal: lease.signal } : {}).catch(() => undefined);
                // A zombie writes whatever happened; a careful worker stops when the lease's signal aborts.
                if (!(honoursLoss && lease.signal.aborted)) await resource.write(lock, lease.token ?? -1, holder);
                recorder.exit();
              })();
              works.add(work);
              return work.finally(() => works.delete(work));
            },
            { fencing: true, signal: stop.signal },
          );
        } catch (error) {
          if (error instanceof LockLostError) {
            stats.lost++;
          } else if (error === stop.signal.reason) {
            break;
          } else if (error instanceof LockTimeoutError) {
            stats.timeouts++;
          } else if (error instanceof LockBackendError && error.code === 'unavailable') {
            stats.unavailable++;
          } else {
            stats.errors++;
            send({ type: 'error', holder, lock, error: String(error) });
          }
        }
      }
    };
    await Promise.all(clients.map(loop));
    await stopped;
    await Promise.allSettled([...works]);
    resource.close();
  } else {
    const holds = clients.map((client, index) => {
      const lock = config.locks[index] ?? `lock-${index}`;
      const holder = `${config.name}/c${index}`;
      return client.lock$(lock, { fencing: true }).subscribe({
        next: (lease) => send({ type: 'enter', lock, holder, token: lease.token ?? -1, start: now(), deadline: lease.deadline, clockOffset: CLOCK_OFFSET }),
        error: (error: unknown) => {
          stats.lost++;
          send({ type: 'lost', lock, holder, reason: error instanceof LockLostError ? error.reason : String(error), at: now() });
        },
      });
    });
    const waits = (config.waits ?? []).map(async (wait) => {
      await sleep(wait.afterMs);
      const client = clients[0];
      if (client === undefined) return;
      const started = performance.now();
      const outcome = await client
        .withLock(wait.lock, () => 'acquired', { waitMs: wait.waitMs })
        .catch((error: unknown) => (error instanceof LockTimeoutError ? 'timeout' : String(error)));
      send({ type: 'waited', lock: wait.lock, outcome, ms: performance.now() - started });
    });
    await Promise.all(waits);
    await stopped;
    for (const hold of holds) hold.unsubscribe();
  }

  await Promise.all(clients.map((client) => client.close()));
  for (const subscription of eventSubscriptions) subscription.unsubscribe();
  for (const redis of connections) redis.close();
  send({ type: 'done', stats: { ...stats, events, maxWaitedMs } });
  process.disconnect();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.on('unhandledRejection', (reason) => send({ type: 'error', holder: '', lock: '', error: `unhandled rejection: ${String(reason)}` }));
  process.once('message', (config: WorkerConfig) => {
    runWorker(config).catch((error: unknown) => {
      send({ type: 'error', holder: '', lock: '', error: `worker failed: ${String(error)}` });
      process.exitCode = 1;
      process.disconnect();
    });
  });
}
