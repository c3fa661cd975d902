import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import { createLockClient, type LockClient, type LockClientOptions } from '../src/index.js';
import { createMemoryStore, type MemoryStore } from '../src/testing.js';

/** Errors compare by class, message and their own fields; stacks differ. */
function comparable(value: unknown): unknown {
  if (value instanceof Error) return { class: value.constructor.name, ...Object.fromEntries(Object.entries(value)), message: value.message };
  if (Array.isArray(value)) return value.map(comparable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

export function createTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(comparable(actual)).toEqual(comparable(expected));
  });
}

export type ClientSettings = Omit<LockClientOptions, 'redis' | 'store' | 'scheduler'>;

/** A memory store on the test scheduler and `count` clients on it, ids c1, c2, ... */
export function memoryClients(
  scheduler: TestScheduler,
  count: number,
  settings: ClientSettings = {},
  latencyMs = 1,
): { store: MemoryStore; clients: LockClient[] } {
  const store = createMemoryStore({ scheduler, latencyMs });
  const clients = Array.from({ length: count }, (_, i) => createLockClient({ store, scheduler, clientId: `c${i + 1}`, watchdogTimeoutMs: 30, ...settings }));
  return { store, clients };
}
