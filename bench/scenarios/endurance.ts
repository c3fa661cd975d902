import type { Redis } from 'ioredis';
import type { Subscription } from 'rxjs';
import type { LockClient } from '../../src/index.js';
import type { LockObservable } from '../contenders/observableLock.js';
import type { RxlockPrimitive } from '../contenders/rxlockObservables.js';
import { heapAfterGc } from '../heap.js';
import { HolderBook } from '../holders.js';
import { rxlock, rxlockTesting } from '../rxlock.js';
import type { BenchServer } from '../server.js';
import { eventually } from '../sleep.js';

export interface EnduranceSettings {
  /** Measured cycles (after the warm-up). */
  readonly cycles: number;
  readonly workers: number;
  /** Workers share keys in groups, so that waiting, subscribing and unsubscribing happen all the time. */
  readonly keys: number;
  readonly keyMarker: string;
  readonly progress: (line: string) => void;
}

export interface EnduranceFigures {
  readonly id: string;
  readonly label: string;
  readonly unavailable?: string | undefined;
  readonly cycles: number;
  readonly seconds: number;
  readonly cyclesPerSecond: number;
  /** Heap after GC before and after the measured cycles, both with every client still open; undefined without --expose-gc. */
  readonly heapStartBytes: number | undefined;
  readonly heapEndBytes: number | undefined;
  readonly heapChange: number | undefined;
  /** Channels of this run that still have subscribers (PUBSUB CHANNELS), and their subscribers (PUBSUB NUMSUB). */
  readonly channelsLeft: number;
  readonly subscriptionsLeft: number;
  readonly keysLeft: number;
  /** Connections the clients opened and did not close on close(). */
  readonly connectionsLeft: number;
  readonly overlaps: number;
  readonly errors: number;
  readonly firstError: string | undefined;
}

/** How long the bench waits for keys and channels to go before it measures what is left. */
const QUIET_MS = 10_000;

/** One acquire/release cycle in one of the ways users write it. */
type Cycle = (client: LockClient, key: string, holders: HolderBook) => Promise<void>;

const viaAcquire: Cycle = async (client, key, holders) => {
  const handle = await client.acquire(key);
  holders.enter(key);
  holders.leave(key);
  await handle.release();
};

const viaWithLock: Cycle = (client, key, holders) =>
  client.withLock(key, () => {
    holders.enter(key);
    holders.leave(key);
  });

/** Subscribe, take the lease, unsubscribe: the release goes out in the background, as with any `lock$` user. */
const viaObservable =
  (lock$: LockObservable): Cycle =>
  async (client, key, holders) => {
    let subscription: Subscription | undefined;
    await new Promise<void>((resolve, reject) => {
      subscription = lock$(client, key).subscribe({ next: () => resolve(), error: reject });
    });
    holders.enter(key);
    holders.leave(key);
    subscription?.unsubscribe();
  };

/** Acquire/release cycles by many clients; then what is left in the heap, on the server and in connections. */
export async function runEndurance(server: BenchServer, primitive: RxlockPrimitive, settings: EnduranceSettings): Promise<EnduranceFigures> {
  const base = { id: primitive.id, label: primitive.label };
  const probe = rxlock.createLockClient({ store: rxlockTesting.createMemoryStore() });
  const available = primitive.lockOf(probe) !== undefined;
  await probe.close();
  if (!available) {
    return {
      ...base,
      unavailable: 'not available in this build',
      cycles: settings.cycles,
      seconds: 0,
      cyclesPerSecond: 0,
      heapStartBytes: undefined,
      heapEndBytes: undefined,
      heapChange: undefined,
      channelsLeft: 0,
      subscriptionsLeft: 0,
      keysLeft: 0,
      connectionsLeft: 0,
      overlaps: 0,
      errors: 0,
      firstError: undefined,
    };
  }

  const marker = `${settings.keyMarker}:endurance:${primitive.id}`;
  const keyOf = (worker: number): string => `${marker}:${worker % settings.keys}`;
  const connections: Redis[] = [];
  const clients: LockClient[] = [];
  for (let i = 0; i < settings.workers; i++) {
    // Named, so that the connections of this run can be told apart on a shared server; rxlock's duplicates inherit the name.
    const redis = server.connect({ connectionName: connectionNameOf(marker) });
    connections.push(redis);
    clients.push(rxlock.createLockClient({ redis }));
  }
  const lock$ = primitive.lockOf(clients[0]!)!;
  const cycles: Cycle[] = primitive.id === 'rxlock' ? [viaAcquire, viaWithLock, viaObservable(lock$)] : [viaObservable(lock$)];
  const holders = new HolderBook();
  let errors = 0;
  let firstError: string | undefined;

  const runCycles = async (total: number, phase: string): Promise<void> => {
    let next = 0;
    const step = Math.max(1, Math.floor(total / 10));
    await Promise.all(
      clients.map(async (client, worker) => {
        while (next < total) {
          const cycle = next++;
          if (cycle % step === 0 && cycle > 0)
            settings.progress(`endurance ${primitive.label} ${phase}: ${cycle.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`);
          try {
            await cycles[cycle % cycles.length]!(client, keyOf(worker), holders);
          } catch (error) {
            errors++;
            firstError ??= String(error);
          }
        }
      }),
    );
  };
  // Hand-off reservations expire after handoffMs and the fair lock keeps a waiter's channel for a grace period (5 s): wait them out.
  const quiet = async (): Promise<boolean> =>
    eventually(async () => (await server.keys(marker)).length === 0 && (await channels(server, marker)).length === 0, QUIET_MS);

  await runCycles(Math.min(20_000, Math.max(500, Math.floor(settings.cycles / 20))), 'warm-up');
  await quiet();
  const heapStartBytes = await heapAfterGc();
  const startedAt = performance.now();
  await runCycles(settings.cycles, 'measured');
  const seconds = (performance.now() - startedAt) / 1_000;
  await quiet();
  const heapEndBytes = await heapAfterGc();

  const left = await channels(server, marker);
  const lockChannels = [...new Set(clients.map((_, worker) => `redisson_lock__channel:{${keyOf(worker)}}`))];
  const numsub = (await server.admin.pubsub('NUMSUB', ...new Set([...left, ...lockChannels]))) as (string | number)[];
  const subscriptionsLeft = numsub.filter((_, i) => i % 2 === 1).reduce<number>((sum, n) => sum + Number(n), 0);
  const keysLeft = (await server.keys(marker)).length;

  await Promise.all(clients.map((client) => client.close()));
  const connectionName = connectionNameOf(marker);
  await eventually(async () => (await connectionCount(server, connectionName)) <= settings.workers, 2_000);
  // What remains beyond the workers' own command connections (which the bench, not rxlock, closes).
  const connectionsLeft = (await connectionCount(server, connectionName)) - settings.workers;
  for (const redis of connections) redis.disconnect();
  await server.deleteKeys(marker);

  return {
    ...base,
    cycles: settings.cycles,
    seconds,
    cyclesPerSecond: settings.cycles / seconds,
    heapStartBytes,
    heapEndBytes,
    heapChange: heapStartBytes !== undefined && heapEndBytes !== undefined ? (heapEndBytes - heapStartBytes) / heapStartBytes : undefined,
    channelsLeft: left.length,
    subscriptionsLeft,
    keysLeft,
    connectionsLeft,
    overlaps: holders.overlaps,
    errors,
    firstError,
  };
}

async function channels(server: BenchServer, marker: string): Promise<string[]> {
  return (await server.admin.pubsub('CHANNELS', `*${marker}*`)) as string[];
}

function connectionNameOf(marker: string): string {
  return marker.replace(/[^\w-]/g, '-');
}

async function connectionCount(server: BenchServer, name: string): Promise<number> {
  const list = String(await server.admin.client('LIST'));
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
}
