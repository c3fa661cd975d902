import { lastValueFrom } from 'rxjs';
import type { Script } from '../../store/Script.js';
import { redisStore } from '../../store/redis/RedisStore.js';
import { StoreError } from '../../store/StoreError.js';
import { wrongTypeOf } from '../../store/wrongType.js';
import { monotonicScheduler } from '../../util/monotonicScheduler.js';
import { CliError } from '../CliError.js';
import type { Connection } from '../connection/Connection.js';
import { familyKeys } from '../inspect/familyKeys.js';
import type { LockObject } from '../inspect/LockObject.js';
import { plural } from '../render/format.js';
import { fairArgv } from '../../primitives/fairLock/fairQueue.js';
import { fairLockKeys } from '../../primitives/fairLock/fairLockKeys.js';
import { fairLockForceUnlockScript } from './fairLockForceUnlockScript.js';
import { latchKeys, latchPublishArgs } from '../../primitives/latch/latchKeys.js';
import { latchOpenScript } from './latchOpenScript.js';
import { lockForceUnlockScript } from '../../primitives/lock/adminScripts.js';
import { lockKeys } from '../../primitives/lock/lockKeys.js';
import { leasedSemaphoreRevokeScript } from './leasedSemaphoreRevokeScript.js';
import { readWriteLockForceUnlockScript } from './readWriteLockForceUnlockScript.js';

/** What `unlock --force` will do to one object: said before asking, done after. */
export interface ForceUnlockPlan {
  /** One sentence for the confirmation prompt. */
  readonly description: string;
  /** Does it; answers what happened, in one line. */
  run(connection: Connection): Promise<string>;
}

/**
 * How each kind is force-unlocked, as its Redisson counterpart does it: a lock through the client's own
 * `forceUnlock`; a fair lock, a read-write lock by deleting them and waking their waiters; a semaphore with
 * leased permits by taking every permit back; a latch by opening it. A plain semaphore has no holder to
 * unlock, and a fencing counter without its lock is not held: both are errors.
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
          // The script itself, not the client's forceUnlock: a name the client API refuses (a lone brace,
          // written by another library or by hand) is still a lock `ls` lists and an operator may free.
          const unlocked = await runScript(connection, name, lockForceUnlockScript, lockKeys(name).releaseKeys, (publish) => [publish, DEFAULT_HANDOFF_MS]);
          return unlocked ? `unlocked "${name}" (was held by ${holders})` : `"${name}" was already free`;
        },
      };
    case 'fairLock':
      return {
        description:
          object.holders.length > 0
            ? `Delete fair lock "${name}" held by ${holders}, drop queued waiters whose time ran out, and wake the head of the queue.`
            : `Fair lock "${name}" is not held: drop queued waiters whose time ran out and wake the head of the queue.`,
        run: async (connection) => {
          const fair = fairLockKeys(name);
          const deleted = await runScript(connection, name, fairLockForceUnlockScript, fair.list, (publishCommand) =>
            fairArgv({ ...NO_HOLD, publishCommand, channelPrefix: fair.channelPrefix }),
          );
          return deleted ? `unlocked fair lock "${name}" (was held by ${holders})` : `fair lock "${name}" was not held; woke the head of its queue`;
        },
      };
    case 'readWriteLock':
      return {
        description: `Delete ${object.mode} lock "${name}" held by ${holders} and wake ${object.mode === 'write' ? 'every waiter' : 'a waiting writer'}.`,
        run: async (connection) => {
          const deleted = await runScript(connection, name, readWriteLockForceUnlockScript, [keys.main, keys.readWriteChannel, keys.holds], (publish) => [
            publish,
            keys.readerTimeoutBase,
          ]);
          return deleted ? `unlocked read-write lock "${name}" (was ${object.mode}-locked by ${holders})` : `read-write lock "${name}" was already free`;
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

/** How long the unlock reserves the lock for a waiter it cannot hand it to directly: a client's default `handoffMs`. */
const DEFAULT_HANDOFF_MS = 100;

/** The fair lock's script arguments of a caller that holds nothing and waits for nothing. */
const NO_HOLD = { leaseMs: 0, field: '', holdId: '', waitId: '', fencing: false, enqueue: false, waiterTimeoutMs: 0, direct: false };

/** Runs one admin script through rxlock's Redis store; `args` gets the publish command its clients use. */
async function runScript<R>(
  connection: Connection,
  name: string,
  script: Script<R>,
  keys: readonly string[],
  args: (publishCommand: string) => (string | number)[],
): Promise<R> {
  const store = redisStore(connection.redis).connect(monotonicScheduler);
  try {
    return await lastValueFrom(store.run(script, keys, args(store.publishCommand)));
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
