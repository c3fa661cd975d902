import { lastValueFrom } from 'rxjs';
import type { Script } from '../../store/Script.js';
import type { StoreConnection } from '../../store/Store.js';
import { redisStore } from '../../store/redis/RedisStore.js';
import { StoreError } from '../../store/StoreError.js';
import { wrongTypeOf } from '../../store/wrongType.js';
import { monotonicScheduler } from '../../util/monotonicScheduler.js';
import { CliError } from '../CliError.js';
import type { Connection } from '../connection/Connection.js';
import { familyKeys } from '../inspect/familyKeys.js';
import type { LockObject } from '../inspect/LockObject.js';
import { plural } from '../render/format.js';
import { latchKeys, latchPublishArgs } from '../../primitives/latch/latchKeys.js';
import { latchOpenScript } from './latchOpenScript.js';
import { forceUnlockAnyKind, type ForceUnlocked, type RunScript } from '../../primitives/lock/forceUnlockAnyKind.js';
import type { LockKind } from '../../primitives/lock/lockKind.js';
import { leasedSemaphoreRevokeScript } from './leasedSemaphoreRevokeScript.js';

/** What `unlock --force` will do to one object: said before asking, done after. */
export interface ForceUnlockPlan {
  /** One sentence for the confirmation prompt. */
  readonly description: string;
  /** Does it; answers what happened, in one line. */
  run(connection: Connection): Promise<string>;
}

/**
 * How each kind is force-unlocked, as its Redisson counterpart does it: a lock, a fair lock and a read-write
 * lock as the client's own `forceUnlock` does (`forceUnlockAnyKind`): deleted, and their waiters woken as a
 * release of that kind wakes them; a semaphore with leased permits by taking every permit back; a latch by
 * opening it. A plain semaphore has no holder to unlock, and a fencing counter without its lock is not held:
 * both are errors.
 */
export function planForceUnlock(object: LockObject): ForceUnlockPlan {
  const { name } = object;
  const keys = familyKeys(name);
  const holders = object.holders.map((holder) => `${holder.id} ×${holder.holds}`).join(', ');
  switch (object.kind) {
    case 'lock':
      if (object.holders.length === 0) throw notHeld(name, 'the lock is free');
      return {
        description: `Delete lock "${name}" held by ${holders} and wake a waiter.`,
        run: async (connection) => {
          // The scripts themselves, not the client's forceUnlock: a name the client API refuses (a lone brace,
          // written by another library or by hand) is still a lock `ls` lists and an operator may free.
          const done = await forceUnlockLock(connection, name, 'lock');
          return done.unlocked ? `unlocked ${what(done.kind, name)} (was held by ${holders})` : `${what(done.kind, name)} was already free`;
        },
      };
    case 'fairLock':
      return {
        description:
          object.holders.length > 0
            ? `Delete fair lock "${name}" held by ${holders}, drop queued waiters whose time ran out, and wake the head of the queue.`
            : `Fair lock "${name}" is not held: drop queued waiters whose time ran out and wake the head of the queue.`,
        run: async (connection) => {
          const done = await forceUnlockLock(connection, name, 'fairLock');
          if (done.unlocked) return `unlocked ${what(done.kind, name)} (was held by ${holders})`;
          return done.kind === 'fairLock' ? `fair lock "${name}" was not held; woke the head of its queue` : `${what(done.kind, name)} was already free`;
        },
      };
    case 'readWriteLock':
      return {
        description: `Delete ${object.mode} lock "${name}" held by ${holders} and wake ${object.mode === 'write' ? 'every waiter' : 'a waiting writer'}.`,
        run: async (connection) => {
          const done = await forceUnlockLock(connection, name, 'readWriteLock');
          if (!done.unlocked) return `${what(done.kind, name)} was already free`;
          return done.kind === 'readWriteLock'
            ? `unlocked read-write lock "${name}" (was ${object.mode}-locked by ${holders})`
            : `unlocked ${what(done.kind, name)} (was held by ${holders})`;
        },
      };
    case 'leasedSemaphore':
      if (object.holders.length === 0) throw notHeld(name, 'no permit is leased');
      return {
        description: `Take back all ${plural(object.holders.length, 'leased permit')} of semaphore "${name}" (as if their leases ran out) and wake its waiters.`,
        run: async (connection) => {
          const returned = await runScript(connection, name, leasedSemaphoreRevokeScript, [keys.main, keys.permitLeases, keys.semaphoreChannel], (publish) => [
            publish,
          ]);
          return `took back ${plural(returned, 'permit')} of semaphore "${name}"`;
        },
      };
    case 'latch':
      return {
        description: `Open latch "${name}" (count ${object.count} → 0) and release everyone awaiting it.`,
        run: async (connection) => {
          const opened = await runScript(connection, name, latchOpenScript, [keys.main, keys.latchChannel], (publish) =>
            latchPublishArgs(latchKeys(name), publish),
          );
          return opened ? `opened latch "${name}"` : `latch "${name}" was already open`;
        },
      };
    case 'semaphore':
      throw new CliError(
        `"${name}" is a semaphore: its permits have no owner, so there is nothing to force-unlock (a holder that died keeps its permits; give them back with the client's addPermits)`,
      );
    case 'fencingCounter':
      throw notHeld(name, 'only its fencing counter exists');
    case 'semaphoreOrLatch':
      throw new CliError(
        `"${name}" holds the integer ${object.value}, which may be a semaphore or a latch: say which with --kind semaphore, --kind leasedSemaphore or --kind latch`,
      );
  }
}

function notHeld(name: string, why: string): CliError {
  return new CliError(`no such lock: "${name}" is not held (${why})`);
}

function wrongType(name: string, key: string, type: string): CliError {
  return new CliError(`wrong type at "${key}": it holds a ${type}, not what "${name}" needs; left untouched`);
}

/** How long the unlock reserves a lock for a waiter it cannot hand it to directly: a client's default `handoffMs`. */
const DEFAULT_HANDOFF_MS = 100;

/** `"x"` (a lock), `fair lock "x"`, `read-write lock "x"`. */
function what(kind: LockKind, name: string): string {
  return kind === 'lock' ? `"${name}"` : `${kind === 'fairLock' ? 'fair lock' : 'read-write lock'} "${name}"`;
}

/**
 * The client's force-unlock of a lock of any kind, starting with the kind `ls` saw (one that changed kind since is
 * unlocked as what it is now). Only dead waiters past their score leave a fair line: the CLI does not know the
 * clients' `fairLockWaiterTimeoutMs`.
 */
function forceUnlockLock(connection: Connection, name: string, kind: LockKind): Promise<ForceUnlocked> {
  return withStore(connection, name, (store) => {
    const run: RunScript = (script, keys, args) => lastValueFrom(store.run(script, keys, args));
    return forceUnlockAnyKind(run, name, { publishCommand: store.publishCommand, handoffMs: DEFAULT_HANDOFF_MS, fairWaiterTimeoutMs: 0 }, kind);
  });
}

/** Runs one admin script through rxlock's Redis store; `args` gets the publish command its clients use. */
function runScript<R>(
  connection: Connection,
  name: string,
  script: Script<R>,
  keys: readonly string[],
  args: (publishCommand: string) => (string | number)[],
): Promise<R> {
  return withStore(connection, name, (store) => lastValueFrom(store.run(script, keys, args(store.publishCommand))));
}

/** Uses a connection of rxlock's Redis store, closed afterwards; a key of another type becomes the CLI's error. */
async function withStore<R>(connection: Connection, name: string, use: (store: StoreConnection) => Promise<R>): Promise<R> {
  const store = redisStore(connection.redis).connect(monotonicScheduler);
  try {
    return await use(store);
  } catch (error) {
    if (error instanceof StoreError && error.code === 'wrongtype') {
      const { key, type } = wrongTypeOf(error.message, name);
      throw wrongType(name, key, type);
    }
    throw error;
  } finally {
    await store.close();
  }
}
