import { defer, finalize, lastValueFrom, timer, type Observable, type ObservableInput } from 'rxjs';
import type { Lease, LockOptions } from '../../src/index.js';
import { sleep } from '../support/leaks.js';

/** What a contended run needs of a client: `createLockClient`'s and `createRedlockClient`'s `withLock$`. */
export interface Contender {
  withLock$<T>(name: string, work: (lease: Lease) => ObservableInput<T>, options?: LockOptions): Observable<T>;
}

export interface ContentionOptions {
  readonly clients: readonly Contender[];
  readonly names: readonly string[];
  /** How long each critical section lasts. */
  readonly workMs: number;
  readonly lockOptions?: LockOptions;
  /** Pause after a failed attempt (error or timeout) before the next. @default 20 */
  readonly pauseAfterErrorMs?: number;
}

/** One critical section as the test process saw it: entered at `start`, left at `end` (released, or torn down on loss). */
export interface Section {
  readonly name: string;
  readonly client: number;
  readonly start: number;
  end: number | undefined;
}

export interface ContentionStats {
  /** Entries into a section while another section of the same name was open: must stay 0. */
  readonly overlaps: number;
  readonly sections: readonly Section[];
  /** Failed `withLock$` runs by error class (and code, for LockBackendError). */
  readonly errors: ReadonlyMap<string, number>;
  /** Sections that ended because the lease was lost (`LockLostError`). */
  readonly lost: number;
  /** The first message of each error label, to tell causes apart. */
  readonly samples: ReadonlyMap<string, string>;
  /** Each overlap: the name, when, the client that entered and the client already inside (since when). */
  readonly overlapped: readonly { name: string; at: number; client: number; with: number; since: number }[];
}

/**
 * Every client loops `withLock$` over the names (client i starts at name i) until `stop()`: the section is
 * a timer of `workMs`, so a lost lease tears it down at once, as the engine promises. All clients live in
 * this process, so one counter per name shows any overlap exactly.
 */
export function contend(options: ContentionOptions): { readonly stats: ContentionStats; stop(): Promise<void> } {
  const { clients, names, workMs, lockOptions, pauseAfterErrorMs = 20 } = options;
  const inside = new Map<string, number>();
  const sections: Section[] = [];
  const errors = new Map<string, number>();
  const samples = new Map<string, string>();
  const overlapped: { name: string; at: number; client: number; with: number; since: number }[] = [];
  let overlaps = 0;
  let lost = 0;
  let running = true;

  const worker = async (client: Contender, index: number): Promise<void> => {
    for (let round = index; running; round++) {
      const name = names[round % names.length]!;
      try {
        await lastValueFrom(
          client.withLock$(
            name,
            () =>
              defer(() => {
                const open = inside.get(name) ?? 0;
                if (open > 0) {
                  overlaps++;
                  const holder = sections.findLast((section) => section.name === name && section.end === undefined);
                  overlapped.push({ name, at: performance.now(), client: index, with: holder?.client ?? -1, since: holder?.start ?? NaN });
                }
                inside.set(name, open + 1);
                const section: Section = { name, client: index, start: performance.now(), end: undefined };
                sections.push(section);
                return timer(workMs).pipe(
                  finalize(() => {
                    section.end = performance.now();
                    inside.set(name, (inside.get(name) ?? 1) - 1);
                  }),
                );
              }),
            lockOptions,
          ),
          { defaultValue: undefined },
        );
      } catch (error) {
        const detail = error instanceof Error ? ((error as { code?: unknown; reason?: unknown }).code ?? (error as { reason?: unknown }).reason) : undefined;
        const label = error instanceof Error ? `${error.name}${typeof detail === 'string' ? `(${detail})` : ''}` : 'non-Error';
        if (error instanceof Error && error.name === 'LockLostError') lost++;
        errors.set(label, (errors.get(label) ?? 0) + 1);
        if (!samples.has(label)) samples.set(label, error instanceof Error ? error.message : String(error));
        await sleep(pauseAfterErrorMs);
      }
    }
  };
  const workers = clients.map((client, index) => worker(client, index));
  return {
    stats: {
      get overlaps() {
        return overlaps;
      },
      sections,
      errors,
      samples,
      overlapped,
      get lost() {
        return lost;
      },
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Sections of `names` that began within [from, to). */
export function sectionsBetween(stats: ContentionStats, names: readonly string[], from: number, to = Infinity): Section[] {
  return stats.sections.filter((section) => names.includes(section.name) && section.start >= from && section.start < to);
}

/** The longest time without any section of `names` starting, within [from, to). */
export function longestGap(stats: ContentionStats, names: readonly string[], from: number, to: number): number {
  const starts = sectionsBetween(stats, names, from, to).map((section) => section.start);
  let previous = from;
  let gap = 0;
  for (const start of [...starts, to]) {
    gap = Math.max(gap, start - previous);
    previous = start;
  }
  return gap;
}
