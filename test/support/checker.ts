import { Redis } from 'ioredis';
import { LockLostError, type Lease } from '../../src/index.js';

/**
 * The clock every record uses: the monotonic scheduler's (`performance.timeOrigin + performance.now()`).
 * It reads as epoch milliseconds and compares directly with Redis's `PEXPIRETIME` and with `lease.deadline`.
 * Across processes it agrees only as well as each process's anchor: the wall clock and the monotonic clock,
 * read when the process started. A pause between those two reads (or a step of the wall clock) leaves a
 * process milliseconds off for its whole life, so records from several processes are compared on the host's
 * monotonic clock (see `CLOCK_OFFSET`).
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** The host's monotonic clock (CLOCK_MONOTONIC), the same in every process of the host, in ms. */
function hostNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * This process's `now()` minus the host's monotonic clock (ms): a record's time less this is comparable across
 * processes. Read between two readings of the host clock, five times, keeping the closest bracket, so that
 * a pause of the process between the readings does not skew it.
 */
export const CLOCK_OFFSET = ((): number => {
  let best = { bracket: Infinity, offset: 0 };
  for (let i = 0; i < 5; i++) {
    const before = hostNow();
    const time = now();
    const after = hostNow();
    if (after - before < best.bracket) best = { bracket: after - before, offset: time - (before + after) / 2 };
  }
  return best.offset;
})();

/** A `now()` time of a process whose `CLOCK_OFFSET` is `clockOffset` (by default this one), on the clock all processes share. */
export function shared(time: number, clockOffset: number = CLOCK_OFFSET): number {
  return time - clockOffset;
}

/** How a critical section ended. `crashed`: its process was killed; `open`: it never ended (a bug). */
export type SectionOutcome = 'released' | 'lost' | 'crashed' | 'open';

/** One critical section, as its holder saw it. */
export interface SectionRecord {
  readonly lock: string;
  /** Which process and client held it, e.g. `w1/c3`. */
  readonly holder: string;
  readonly owner: string;
  readonly token: number;
  /** When the lease reached the holder. */
  readonly start: number;
  /** The last moment the holder believed it held the lock: its exit or its loss, capped by the lease deadline. */
  readonly end: number;
  /** When the holder saw the section end (its exit, or the loss signal), uncapped. */
  readonly observedEnd: number;
  readonly outcome: SectionOutcome;
  readonly lostReason?: string | undefined;
  /** The recording process's `CLOCK_OFFSET`: its times less this are on the clock shared by all processes. */
  readonly clockOffset: number;
}

/** One write the fenced resource received, in the order it received them (per lock). */
export interface ResourceWrite {
  readonly lock: string;
  readonly token: number;
  readonly holder: string;
  readonly accepted: boolean;
  /** The highest token the resource had accepted before this write. */
  readonly lastBefore: number;
  /** When the writer sent it (the writer's clock). */
  readonly sentAt: number;
}

/**
 * Records one critical section from inside the work: `enter` when the lease arrives, `exit` when the work
 * is done. A loss (the lease's signal aborting with `LockLostError`) ends the section at that moment, even
 * if the work carries on (a zombie, which the fenced resource must catch); so does a release or a
 * cancellation that came before the work's own exit.
 */
export class SectionRecorder {
  readonly #lock: string;
  readonly #holder: string;
  readonly #lease: Lease;
  readonly #start = now();
  #ended: SectionRecord | undefined;
  readonly #onEnd: (record: SectionRecord) => void;

  constructor(lock: string, holder: string, lease: Lease, onEnd: (record: SectionRecord) => void) {
    this.#lock = lock;
    this.#holder = holder;
    this.#lease = lease;
    this.#onEnd = onEnd;
    lease.signal.addEventListener(
      'abort',
      () => {
        // The signal also aborts when the lease is released (or cancelled): the hold ends there at the latest.
        const reason: unknown = lease.signal.reason;
        if (reason instanceof LockLostError) this.#finish('lost', reason.reason);
        else this.#finish('released', undefined);
      },
      { once: true },
    );
  }

  /** When the lease reached the holder. */
  get start(): number {
    return this.#start;
  }

  get ended(): boolean {
    return this.#ended !== undefined;
  }

  /** The work is over (before the release is sent). */
  exit(): void {
    this.#finish('released', undefined);
  }

  #finish(outcome: SectionOutcome, lostReason: string | undefined): void {
    if (this.#ended !== undefined) return;
    const observedEnd = now();
    const end = Math.min(observedEnd, this.#lease.deadline);
    const { owner, token = -1 } = this.#lease;
    this.#ended = {
      lock: this.#lock,
      holder: this.#holder,
      owner,
      token,
      start: this.#start,
      end,
      observedEnd,
      outcome,
      lostReason,
      clockOffset: CLOCK_OFFSET,
    };
    this.#onEnd(this.#ended);
  }
}

const WRITE_LUA = `
local last = tonumber(redis.call('get', KEYS[1]) or '-1')
local token = tonumber(ARGV[1])
local accepted = 0
if token >= last then
  redis.call('set', KEYS[1], ARGV[1])
  accepted = 1
end
redis.call('rpush', KEYS[2], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. accepted .. ' ' .. last .. ' ' .. ARGV[3])
return accepted
`;

/**
 * The shared resource the critical sections write to: a separate redis-server that no fault touches. A
 * write is accepted only if its fencing token is not older than the last one accepted for that lock.
 */
export class FencedResource {
  readonly #redis: Redis;

  constructor(port: number) {
    this.#redis = new Redis({ port, host: '127.0.0.1' });
    this.#redis.on('error', () => undefined);
  }

  /** Writes as `holder` with `token`; true when accepted. */
  async write(lock: string, token: number, holder: string): Promise<boolean> {
    const reply = await this.#redis.eval(WRITE_LUA, 2, `last:${lock}`, `log:${lock}`, token, holder, now().toFixed(3));
    return reply === 1;
  }

  /** Every write received, per lock in the resource's order. */
  async writes(): Promise<ResourceWrite[]> {
    const logs = (await this.#redis.keys('log:*')).sort();
    const all: ResourceWrite[] = [];
    for (const key of logs) {
      const lock = key.slice('log:'.length);
      for (const line of await this.#redis.lrange(key, 0, -1)) {
        const [token = '', holder = '', accepted = '', lastBefore = '', sentAt = ''] = line.split(' ');
        all.push({ lock, token: Number(token), holder, accepted: accepted === '1', lastBefore: Number(lastBefore), sentAt: Number(sentAt) });
      }
    }
    return all;
  }

  async clear(): Promise<void> {
    await this.#redis.flushall();
  }

  close(): void {
    this.#redis.disconnect();
  }
}

/** The sections, of any process, that had entered and not yet seen their end at `at` (this process's `now()`). */
export function openAt(sections: readonly SectionRecord[], at: number): SectionRecord[] {
  const moment = shared(at);
  return sections.filter((section) => startOf(section) < moment && observedEndOf(section) > moment);
}

/** Two sections of one lock whose believed-held intervals overlap. */
export interface Overlap {
  readonly lock: string;
  readonly first: SectionRecord;
  readonly second: SectionRecord;
  readonly ms: number;
}

/** When a section entered, on the clock shared by all processes. */
export function startOf(section: SectionRecord): number {
  return shared(section.start, section.clockOffset);
}

/** When a section ended (capped by its lease deadline), on the clock shared by all processes. */
function endOf(section: SectionRecord): number {
  return shared(section.end, section.clockOffset);
}

/** When a section's holder saw it end (uncapped), on the clock shared by all processes. */
export function observedEndOf(section: SectionRecord): number {
  return shared(section.observedEnd, section.clockOffset);
}

/** What the checker found in one run. */
export interface CheckReport {
  readonly sections: number;
  readonly locks: number;
  /** Pairs of sections of one lock whose intervals (start to end, end capped by the lease deadline) overlap. */
  readonly overlaps: readonly Overlap[];
  /** Sections whose token was not larger than the token of the section that entered before them. */
  readonly tokenRegressions: number;
  /** Accepted writes carrying a token older than one the resource had already accepted: must always be 0. */
  readonly staleAccepted: number;
  /** Writes the fence rejected because a newer token had been accepted. */
  readonly rejected: number;
  /** Writes sent after the writer's own section had ended (it had been told it lost the lock). */
  readonly lateWrites: number;
  /** Late writes the fence rejected (the rest came before any newer holder wrote, so they harmed nobody). */
  readonly lateRejected: number;
  /** Writes sent inside their section but rejected: only possible when tokens went backwards. */
  readonly liveRejected: number;
  /**
   * Accepted writes sent after a newer holder of the lock had entered: the fence lets one through only
   * when the newer holder had not written yet (harmless, the resource orders it first), or when tokens
   * went backwards (a restart without persistence).
   */
  readonly supersededAccepted: number;
  /** Sections that neither ended nor were reported lost. */
  readonly unfinished: readonly SectionRecord[];
  /** Accepted writes no recorded section explains. */
  readonly unexplained: number;
}

/**
 * Checks a run's history: exclusion in time, fencing-token order, no stale write accepted, every section
 * finished. Sections of a lock are ordered by when their holders entered.
 */
export function checkHistory(sections: readonly SectionRecord[], writes: readonly ResourceWrite[]): CheckReport {
  const byLock = new Map<string, SectionRecord[]>();
  for (const section of sections) {
    let list = byLock.get(section.lock);
    if (list === undefined) byLock.set(section.lock, (list = []));
    list.push(section);
  }
  const overlaps: Overlap[] = [];
  let tokenRegressions = 0;
  for (const [lock, list] of byLock) {
    list.sort((a, b) => startOf(a) - startOf(b));
    // Against every earlier section still open when this one entered, not just the previous one.
    let latestEnd: SectionRecord | undefined;
    for (const [index, section] of list.entries()) {
      if (latestEnd !== undefined && endOf(latestEnd) > startOf(section))
        overlaps.push({ lock, first: latestEnd, second: section, ms: endOf(latestEnd) - startOf(section) });
      if (latestEnd === undefined || endOf(section) > endOf(latestEnd)) latestEnd = section;
      const previous = list[index - 1];
      if (previous !== undefined && section.token <= previous.token) tokenRegressions++;
    }
  }
  const sectionOf = new Map<string, SectionRecord>();
  for (const section of sections) sectionOf.set(`${section.lock} ${section.holder} ${section.token}`, section);
  let staleAccepted = 0;
  let rejected = 0;
  let lateWrites = 0;
  let lateRejected = 0;
  let liveRejected = 0;
  let unexplained = 0;
  let supersededAccepted = 0;
  const highest = new Map<string, number>();
  for (const write of writes) {
    const top = highest.get(write.lock) ?? -1;
    if (write.accepted) {
      if (write.token < top) staleAccepted++;
      highest.set(write.lock, Math.max(top, write.token));
    } else {
      rejected++;
    }
    const section = sectionOf.get(`${write.lock} ${write.holder} ${write.token}`);
    if (section === undefined) {
      if (write.accepted) unexplained++;
      continue;
    }
    // The writer is the section's own process: its send time moves to the shared clock by the section's offset.
    if (write.accepted && supersededBefore(byLock.get(write.lock) ?? [], section, shared(write.sentAt, section.clockOffset))) supersededAccepted++;
    const late = section.outcome !== 'crashed' && write.sentAt > section.end;
    if (late) {
      lateWrites++;
      if (!write.accepted) lateRejected++;
    } else if (!write.accepted) {
      liveRejected++;
    }
  }
  return {
    sections: sections.length,
    locks: byLock.size,
    overlaps,
    tokenRegressions,
    staleAccepted,
    rejected,
    lateWrites,
    lateRejected,
    liveRejected,
    supersededAccepted,
    unfinished: sections.filter((section) => section.outcome === 'open'),
    unexplained,
  };
}

/** Whether a section of the lock (sorted by start) entered after `section` and before `at` (all on the shared clock). */
function supersededBefore(sorted: readonly SectionRecord[], section: SectionRecord, at: number): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (startOf(sorted[middle]!) <= startOf(section)) low = middle + 1;
    else high = middle;
  }
  const next = sorted[low];
  return next !== undefined && startOf(next) < at;
}

/** The promises a run is held to; a fault that voids one (a restart without persistence) turns it off. */
export interface Promises {
  /** No two sections of a lock overlap, and tokens grow in the order holders entered. @default true */
  readonly exclusion?: boolean;
}

/** Everything in `report` that breaks a promise, in words; empty when the run is clean. */
export function violations(report: CheckReport, promises: Promises = {}): string[] {
  const found: string[] = [];
  if (promises.exclusion ?? true) {
    for (const overlap of report.overlaps.slice(0, 5)) {
      found.push(
        `overlap on ${overlap.lock}: ${overlap.first.holder} (token ${overlap.first.token}, ${overlap.first.outcome}) until ${endOf(overlap.first).toFixed(1)}, ` +
          `${overlap.second.holder} (token ${overlap.second.token}) from ${startOf(overlap.second).toFixed(1)} (host clock): ${overlap.ms.toFixed(1)} ms`,
      );
    }
    if (report.tokenRegressions > 0) found.push(`${report.tokenRegressions} fencing tokens did not grow in the order holders entered`);
    if (report.liveRejected > 0) found.push(`${report.liveRejected} writes from current holders were rejected`);
  }
  if (report.staleAccepted > 0) found.push(`${report.staleAccepted} stale writes were accepted`);
  if (report.unexplained > 0) found.push(`${report.unexplained} accepted writes belong to no recorded section`);
  for (const section of report.unfinished.slice(0, 5)) found.push(`section of ${section.holder} on ${section.lock} (token ${section.token}) never ended`);
  return found;
}

/** A one-line summary for test output and the README. */
export function summary(report: CheckReport): string {
  const maxOverlap = report.overlaps.reduce((max, overlap) => Math.max(max, overlap.ms), 0);
  return (
    `${report.sections} sections on ${report.locks} locks; overlaps ${report.overlaps.length}` +
    (report.overlaps.length > 0 ? ` (longest ${maxOverlap.toFixed(1)} ms)` : '') +
    `; token regressions ${report.tokenRegressions}; stale writes accepted ${report.staleAccepted}; ` +
    `late (zombie) writes ${report.lateWrites}, rejected by the fence ${report.lateRejected}; ` +
    `current holders' writes rejected ${report.liveRejected}; writes accepted from superseded holders ${report.supersededAccepted}; ` +
    `unfinished ${report.unfinished.length}`
  );
}

const EXPIRY_OF_FIELD = `
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then return redis.call('pexpiretime', KEYS[1]) end
return -3
`;

/**
 * Polls, from a direct connection, when the server will expire `key` while `field` holds it. `stop()`
 * returns the last expiry seen (epoch ms, Redis's clock), or undefined if the field never held it.
 */
export function watchServerExpiry(
  redis: Redis,
  key: string,
  field: string,
  everyMs = 2,
): { stop(): Promise<number | undefined>; readonly last: number | undefined } {
  let last: number | undefined;
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      const expiry = Number(await redis.eval(EXPIRY_OF_FIELD, 1, key, field));
      if (expiry > 0) last = expiry;
      else if (expiry === -3 && last !== undefined) return;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    get last() {
      return last;
    },
    async stop() {
      state.running = false;
      await loop;
      return last;
    },
  };
}

/** A seeded generator of numbers in [0, 1), so every fault run can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** The seed of a fault run: `RXLOCK_SEED` when set, otherwise a new one. Print it so a failure can be replayed. */
export function runSeed(): number {
  const fromEnv = process.env['RXLOCK_SEED'];
  return fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31);
}

/**
 * Records, through MONITOR on the lock server, when every PEXPIRE ran and for how long, so a test can
 * tell exactly when a key was due to expire at any moment, even across a SIGSTOP (the monitor stream
 * is flushed when the server resumes). Times are Redis's clock, in epoch ms.
 */
export async function monitorExpiries(redis: Redis): Promise<{ expiryAt(key: string, at: number): number | undefined; stop(): void }> {
  const monitor = await redis.monitor();
  const sets = new Map<string, { at: number; expiry: number }[]>();
  monitor.on('monitor', (time: string, args: string[]) => {
    const [command = '', key = '', ms = ''] = args;
    if (command.toLowerCase() !== 'pexpire') return;
    const at = Number(time) * 1_000;
    let list = sets.get(key);
    if (list === undefined) sets.set(key, (list = []));
    list.push({ at, expiry: at + Number(ms) });
  });
  return {
    /** The expiry in force at `at`: the last PEXPIRE that ran before it. */
    expiryAt(key, at) {
      let expiry: number | undefined;
      for (const set of sets.get(key) ?? []) if (set.at <= at) expiry = set.expiry;
      return expiry;
    },
    stop() {
      monitor.disconnect();
    },
  };
}
