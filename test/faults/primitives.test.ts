import { lockConnection, type ClosableRedis } from '../support/clientLibrary.js';
import { Redis } from 'ioredis';
import type { Observable, Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, LockLostError, type Lease, type LockClient } from '../../src/index.js';
import { now, seededRandom } from '../support/checker.js';
import { eventually, isOpMemory, sleep } from '../support/leaks.js';
import { figure, spread, useRig, type Rig } from './rig.js';

// Long enough that a reconnect (20 ms retry) never costs a lease, short enough that renewals run every 333 ms.
const TTL = 1_000;
const CLIENTS = 4;
const LOOPS_PER_CLIENT = 2;
const FAULT_MS = 3_500;
/**
 * After the faults stop, the object may not lie free (nobody holding) for longer than this while its contenders
 * come back within 50 ms of each release: a key left by a holder that lost its connection runs out within one
 * lease, and a waiter that missed the wake-up tries again by its TTL fallback. A wait may well be longer: only
 * the fair lock promises an order, and readers, or holders of the other permit, may keep a waiter out.
 */
const FREE_BOUND_MS = 2 * TTL;
/** Quiet running after the faults: longer than the bound, so that an object left free past it is seen. */
const TAIL_MS = FREE_BOUND_MS + 1_500;
/** Between one loop's tries: the 8 contenders then ask for about 1.5 holders' worth on average, so there are free moments. */
const THINK_MS = [10, 50] as const;

type Side = 'exclusive' | 'shared';
type Fault = 'pubsub' | 'normal' | 'script-flush';
const FAULT_DECK: readonly Fault[] = ['pubsub', 'pubsub', 'normal', 'script-flush'];

/** A copy of `items` in a random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** One holder's belief that it held: from the lease's arrival to its exit or loss, capped by the lease's deadline (as checker.ts does). */
interface Section {
  readonly loop: string;
  readonly side: Side;
  readonly start: number;
  end: number;
  outcome: 'open' | 'released' | 'lost';
}

interface Primitive {
  readonly title: string;
  readonly figure: string;
  readonly name: string;
  /** Most holders at once, and whether an exclusive holder must be alone. */
  readonly capacity: number;
  setUp?(client: LockClient): Promise<void>;
  acquire$(client: LockClient, random: () => number): { side: Side; lease$: Observable<Lease> };
  /** After every client closed: what is still held on the server, in words (empty when everything was given back). */
  leftovers(admin: Redis): Promise<string[]>;
  /** Keys that outlive every holder by design (a semaphore's count), deleted once checked. */
  readonly ownKeys?: readonly string[];
}

const PERMITS = 2;

const PRIMITIVES: readonly Primitive[] = [
  {
    title: 'fairLock$',
    figure: 'primitives-fair',
    name: 'pf-fair',
    capacity: 1,
    acquire$: (client) => ({ side: 'exclusive', lease$: client.fairLock$('pf-fair') }),
    leftovers: () => Promise.resolve([]),
  },
  {
    title: 'writeLock$ + readLock$',
    figure: 'primitives-rw',
    name: 'pf-rw',
    capacity: Infinity,
    acquire$: (client, random) =>
      random() < 0.35 ? { side: 'exclusive', lease$: client.writeLock$('pf-rw') } : { side: 'shared', lease$: client.readLock$('pf-rw') },
    leftovers: () => Promise.resolve([]),
  },
  {
    title: `semaphore with ${PERMITS} permits`,
    figure: 'primitives-semaphore',
    name: 'pf-sem',
    capacity: PERMITS,
    setUp: async (client) => {
      await client.semaphore('pf-sem').trySetPermits(PERMITS);
    },
    acquire$: (client) => ({ side: 'shared', lease$: client.semaphore('pf-sem').acquire$() }),
    leftovers: async (admin) => {
      const left: string[] = [];
      const count = await admin.get('pf-sem');
      if (count !== String(PERMITS)) left.push(`count is ${count}, not ${PERMITS}: permits were not given back`);
      const holds = await admin.hgetall('rxlock_holds:{pf-sem}');
      if (Object.keys(holds).length > 0) left.push(`holds left: ${JSON.stringify(holds)}`);
      return left;
    },
    ownKeys: ['pf-sem'],
  },
  {
    title: `leased semaphore with ${PERMITS} permits`,
    figure: 'primitives-leased',
    name: 'pf-leased',
    capacity: PERMITS,
    setUp: async (client) => {
      await client.leasedSemaphore('pf-leased').trySetPermits(PERMITS);
    },
    acquire$: (client) => ({ side: 'shared', lease$: client.leasedSemaphore('pf-leased').acquire$() }),
    leftovers: async (admin) => {
      const left: string[] = [];
      const count = await admin.get('pf-leased');
      if (count !== String(PERMITS)) left.push(`count is ${count}, not ${PERMITS}: permits were not given back`);
      const held = await admin.zcard('{pf-leased}:timeout');
      if (held > 0) left.push(`${held} permits still in {pf-leased}:timeout`);
      return left;
    },
    ownKeys: ['pf-leased'],
  },
  {
    // Every group holds `hub` and one other value of 20: exclusive, as one value in common makes two groups.
    title: 'groupLock$ over groups that share a value',
    figure: 'primitives-group',
    name: 'pf-group',
    capacity: 1,
    acquire$: (client, random) => ({ side: 'exclusive', lease$: client.groupLock$('pf-group', ['hub', `v${String(Math.floor(random() * 20))}`]) }),
    leftovers: async (admin) => {
      const fields = await admin.hkeys('pf-group');
      return fields.length > 0 ? [`${fields.length} fields still in the group hash`] : [];
    },
  },
];

/** Moments when more holders held than the primitive allows: checked at every section's start, against every section still believed held then. */
function overlaps(sections: readonly Section[], capacity: number): string[] {
  const sorted = [...sections].sort((a, b) => a.start - b.start);
  const found: string[] = [];
  let active: Section[] = [];
  for (const section of sorted) {
    active = active.filter((other) => other.end > section.start);
    active.push(section);
    const exclusive = active.filter((other) => other.side === 'exclusive');
    const bad = active.length > capacity || (exclusive.length > 0 && active.length > 1);
    if (bad && found.length < 5) {
      found.push(
        `at ${section.start.toFixed(1)}: ${active.map((s) => `${s.loop} ${s.side} ${s.start.toFixed(1)}-${s.end.toFixed(1)} (${s.outcome})`).join(', ')}`,
      );
    }
  }
  return found;
}

/** The lengths of the moments between `from` and `to` when no section was held. */
function freeGaps(sections: readonly Section[], from: number, to: number): number[] {
  const held = sections
    .filter((section) => section.start < to && section.end > from)
    .map((section) => [Math.max(section.start, from), Math.min(section.end, to)] as const)
    .sort((a, b) => a[0] - b[0]);
  const gaps: number[] = [];
  let cursor = from;
  for (const [start, end] of held) {
    if (start > cursor) gaps.push(start - cursor);
    cursor = Math.max(cursor, end);
  }
  if (to > cursor) gaps.push(to - cursor);
  return gaps;
}

/** What a test's errors are, by class and reason or code: every one must be a documented rxlock error. */
function describeError(error: unknown): { key: string; documented: boolean } {
  if (error instanceof LockLostError) return { key: `LockLostError(${error.reason})`, documented: true };
  if (error instanceof LockBackendError) return { key: `LockBackendError(${error.code})`, documented: true };
  const name = error instanceof Error ? error.constructor.name : typeof error;
  return { key: `${name}: ${error instanceof Error ? error.message : String(error)}`, documented: false };
}

interface Loop {
  readonly id: string;
  sections: number;
  /** When its current wait began; undefined while it holds or between tries. */
  waitingSince: number | undefined;
  /** What it waits for (or last waited for). */
  side: Side;
  /** Longest wait that ran (in part) after the faults stopped, counted from when they stopped at the earliest. */
  longestAfterFaults: number;
}

async function contend(rig: Rig, primitive: Primitive): Promise<void> {
  const { admin, locks, seed } = rig;
  const random = seededRandom(seed + primitive.name.length * 7_919);
  const connections: ClosableRedis[] = [];
  const clients: LockClient[] = [];
  const events: Record<string, number> = {};
  const eventSubscriptions: Subscription[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const redis = lockConnection(locks.port, { retryMs: 20 });
    connections.push(redis);
    const client = createLockClient({ redis, clientId: `${primitive.name}-c${i}`, watchdogTimeoutMs: TTL });
    eventSubscriptions.push(client.events$.subscribe((event) => (events[event.type] = (events[event.type] ?? 0) + 1)));
    clients.push(client);
  }
  await primitive.setUp?.(clients[0]!);

  const sections: Section[] = [];
  const waits: number[] = [];
  const errors = new Map<string, number>();
  const undocumented: string[] = [];
  const stop = new AbortController();
  const stopped = () => stop.signal.aborted;
  let faultsStoppedAt = Infinity;
  const loops: Loop[] = [];

  /** One try: wait for the lease, work a little (sometimes across renewals), give it back. */
  const once = (client: LockClient, loop: Loop): Promise<void> =>
    new Promise<void>((resolve) => {
      const { side, lease$ } = primitive.acquire$(client, random);
      const askedAt = now();
      loop.waitingSince = askedAt;
      loop.side = side;
      let section: Section | undefined;
      let lease: Lease | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // An object, so that the checks after subscribe() see what the callbacks (which may run synchronously) set.
      const state: { done: boolean; subscription: Subscription | undefined } = { done: false, subscription: undefined };
      const endSection = (outcome: 'released' | 'lost') => {
        if (section === undefined || section.outcome !== 'open') return;
        section.end = Math.min(now(), lease!.deadline);
        section.outcome = outcome;
      };
      const noteWait = (until: number) => {
        if (loop.waitingSince === undefined) return;
        if (until > faultsStoppedAt) loop.longestAfterFaults = Math.max(loop.longestAfterFaults, until - Math.max(loop.waitingSince, faultsStoppedAt));
        loop.waitingSince = undefined;
      };
      const finish = () => {
        if (state.done) return;
        state.done = true;
        clearTimeout(timer);
        stop.signal.removeEventListener('abort', onStop);
        endSection('released');
        noteWait(now());
        state.subscription?.unsubscribe();
        resolve();
      };
      const onStop = () => finish();
      stop.signal.addEventListener('abort', onStop, { once: true });
      state.subscription = lease$.subscribe({
        next: (value) => {
          const start = now();
          noteWait(start);
          waits.push(start - askedAt);
          lease = value;
          section = { loop: loop.id, side, start, end: Infinity, outcome: 'open' };
          sections.push(section);
          loop.sections++;
          // Mostly short sections; one in ten spans a renewal or two, so renewals meet the faults too.
          const workMs = random() < 0.1 ? 350 + Math.floor(random() * 400) : Math.floor(random() * 15);
          timer = setTimeout(finish, workMs);
        },
        error: (error: unknown) => {
          endSection('lost');
          const { key, documented } = describeError(error);
          errors.set(key, (errors.get(key) ?? 0) + 1);
          if (!documented) undocumented.push(`${loop.id}: ${key}`);
          finish();
        },
        complete: finish,
      });
      if (state.done) state.subscription.unsubscribe();
    });

  const running = clients.flatMap((client, c) =>
    Array.from({ length: LOOPS_PER_CLIENT }, async (_, l) => {
      const loop: Loop = { id: `c${c}/l${l}`, sections: 0, waitingSince: undefined, side: 'shared', longestAfterFaults: 0 };
      loops.push(loop);
      while (!stop.signal.aborted) {
        await once(client, loop);
        // A pause between tries. Only lock$ and fairLock$ promise that a waiter is not starved: a semaphore's or
        // read-write lock's client that re-acquires in the tick it released (its acquire travels right behind its
        // release) barges ahead of every other client's woken waiter, forever, with or without faults. What this
        // test looks for is a waiter that is never woken, not barging.
        if (!stopped()) await sleep(THINK_MS[0] + Math.floor(random() * (THINK_MS[1] - THINK_MS[0])));
      }
    }),
  );

  // The nemesis: a fault every 150-300 ms. It also samples the channels in use, to check each of them is gone at the end.
  const injected: Record<Fault, number> = { pubsub: 0, normal: 0, 'script-flush': 0 };
  let killedConnections = 0;
  const channelsSeen = new Set<string>();
  // Dealt from shuffled decks, half of them pub/sub kills: a random draw of each fault gave some runs too few of one kind.
  let hand: Fault[] = [];
  const nextFault = (): Fault => {
    if (hand.length === 0) hand = shuffled(FAULT_DECK, random);
    return hand.pop()!;
  };
  const faultsUntil = performance.now() + FAULT_MS;
  while (performance.now() < faultsUntil) {
    await sleep(150 + Math.floor(random() * 150));
    for (const channel of (await admin.pubsub('CHANNELS')) as string[]) channelsSeen.add(channel);
    const fault = nextFault();
    if (fault === 'pubsub') {
      injected.pubsub++;
      killedConnections += Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'));
    } else if (fault === 'normal') {
      // Some of the command connections: each other one with probability 1/2.
      injected.normal++;
      const me = Number(await admin.call('CLIENT', 'ID'));
      const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'normal'));
      const ids = [...list.matchAll(/\bid=(\d+)/g)].map((match) => Number(match[1])).filter((id) => id !== me);
      for (const id of ids) if (random() < 0.5) killedConnections += Number(await admin.call('CLIENT', 'KILL', 'ID', String(id)));
    } else {
      injected['script-flush']++;
      await admin.script('FLUSH');
    }
  }
  faultsStoppedAt = now();
  const sectionsDuringFaults = sections.length;
  await sleep(TAIL_MS);
  const stoppedAt = now();
  // Waits still running now count up to now: a waiter stuck since the faults stopped shows here.
  for (const loop of loops) {
    if (loop.waitingSince !== undefined) loop.longestAfterFaults = Math.max(loop.longestAfterFaults, stoppedAt - Math.max(loop.waitingSince, faultsStoppedAt));
  }
  // The longest moment nobody held after the faults stopped, and the waits longer than it, with the free gaps they saw.
  const longestFree = Math.max(0, ...freeGaps(sections, faultsStoppedAt, stoppedAt));
  const longWaits = loops
    .filter((loop) => loop.longestAfterFaults > FREE_BOUND_MS)
    .map((loop) => {
      const gaps = freeGaps(sections, Math.max(loop.waitingSince ?? faultsStoppedAt, faultsStoppedAt), stoppedAt);
      return (
        `${loop.id} waited ${loop.longestAfterFaults.toFixed(0)} ms for ${loop.side === 'exclusive' ? 'an exclusive' : 'a shared'} hold, ` +
        `while nobody held for ${gaps.length} gaps, ${gaps.reduce((sum, gap) => sum + gap, 0).toFixed(0)} ms in all (longest ${Math.max(0, ...gaps).toFixed(0)} ms)`
      );
    });
  const idle = loops.filter((loop) => loop.sections === 0).map((loop) => loop.id);
  stop.abort();
  await Promise.all(running);
  for (const subscription of eventSubscriptions) subscription.unsubscribe();
  await Promise.all(clients.map((client) => client.close()));

  // Given back: nothing held, queued or subscribed once every client closed.
  const held = await primitive.leftovers(admin);
  if (primitive.ownKeys !== undefined) await admin.del(...primitive.ownKeys);
  for (const redis of connections) redis.close();
  const keys = async () => {
    const all = await admin.keys('*');
    const ttls = await Promise.all(all.map((key) => admin.pttl(key)));
    return all.filter((key, i) => !key.startsWith('redisson_lock_token:') && !isOpMemory(key, ttls[i]!));
  };
  await eventually(async () => (await keys()).length === 0, 2_000);
  const keysLeft = await keys();
  // The semaphores' op memory outlives them by design (5 minutes): not a leak, but the rig's check would count it.
  const opMemory = await admin.keys('rxlock_ops:*');
  if (opMemory.length > 0) await admin.del(...opMemory);
  await eventually(async () => ((await admin.pubsub('CHANNELS')) as string[]).length === 0, 1_000);
  const channelsLeft = (await admin.pubsub('CHANNELS')) as string[];
  const numsub = channelsSeen.size === 0 ? [] : ((await admin.pubsub('NUMSUB', ...channelsSeen)) as (string | number)[]);
  const stillSubscribed = numsub.flatMap((value, i) => (i % 2 === 1 && Number(value) > 0 ? [`${String(numsub[i - 1])}: ${String(value)}`] : []));
  const me = Number(await admin.call('CLIENT', 'ID'));
  const others = async () =>
    [...String(await admin.call('CLIENT', 'LIST')).matchAll(/\bid=(\d+)\b.*?\bname=(\S*).*?\bcmd=(\S+)/g)].filter((match) => Number(match[1]) !== me);
  await eventually(async () => (await others()).length === 0, 2_000);
  const connectionsLeft = (await others()).map((match) => `id=${match[1]} cmd=${match[3]}`);

  const found = overlaps(sections, primitive.capacity);
  const errorText = [...errors].map(([key, count]) => `${key} ×${count}`).join(', ') || 'none';
  const longestWait = Math.max(0, ...waits);
  const longestAfterFaults = Math.max(0, ...loops.map((loop) => loop.longestAfterFaults));
  figure(
    primitive.figure,
    `${primitive.title}: ${CLIENTS * LOOPS_PER_CLIENT} contenders on ${CLIENTS} clients; ${sections.length} sections (${sectionsDuringFaults} during ${FAULT_MS / 1_000} s of faults); ` +
      `faults ${injected.pubsub + injected.normal + injected['script-flush']} (pubsub kill ${injected.pubsub}, normal kill ${injected.normal}, script flush ${injected['script-flush']}; ${killedConnections} connections killed); ` +
      `overlaps ${found.length}; longest wait ${longestWait.toFixed(1)} ms, after the faults ${longestAfterFaults.toFixed(1)} ms; ` +
      `longest time nobody held after the faults ${longestFree.toFixed(1)} ms (bound ${FREE_BOUND_MS} ms); ` +
      `errors ${errorText}; renewed ${events['renewed'] ?? 0}, renew-failed ${events['renew-failed'] ?? 0}, release-failed ${events['release-failed'] ?? 0}; ` +
      `${channelsSeen.size} channels seen`,
  );
  figure(primitive.figure, `waits: ${spread(waits)}`);
  for (const wait of longWaits) figure(primitive.figure, `long wait: ${wait}`);

  expect({ overlaps: found, undocumented }).toEqual({ overlaps: [], undocumented: [] });
  expect({ leftFreeTooLong: longestFree > FREE_BOUND_MS ? longestFree : 'no', idle }).toEqual({ leftFreeTooLong: 'no', idle: [] });
  expect(sections.every((section) => section.outcome !== 'open')).toBe(true);
  expect({ held, keysLeft, channelsLeft, stillSubscribed, connectionsLeft }).toEqual({
    held: [],
    keysLeft: [],
    channelsLeft: [],
    stillSubscribed: [],
    connectionsLeft: [],
  });
  // The faults did happen, and often enough to matter.
  expect(injected.pubsub).toBeGreaterThan(3);
  expect(injected.normal + injected['script-flush']).toBeGreaterThan(3);
  expect(killedConnections).toBeGreaterThan(injected.pubsub);
}

describe('faults on the other primitives: pub/sub kills, command-connection kills and SCRIPT FLUSH every 150-300 ms', () => {
  const rig = useRig();

  for (const primitive of PRIMITIVES) {
    it(`${primitive.title}: ${CLIENTS} clients contend; no overlap, never left free while waited for, no undocumented error, nothing left after close()`, async () => {
      await contend(rig(), primitive);
    });
  }
});
