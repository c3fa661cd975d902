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
import { latchKeys, latchPublishArgs } from '../../primitives/latch/latchKeys.js';
import { latchOpenScript } from './latchOpenScript.js';
import { forceUnlockAnyKind, type ForceUnlocked, type RunScript } from '../../primitives/lock/forceUnlockAnyKind.js';
import type { LockKind } from '../../primitives/lock/lockKind.js';
import { groupLockKeys } from '../../primitives/groupLock/groupLockKeys.js';
import { groupLockForceUnlockScript } from './groupLockForceUnlockScript.js';
import { leasedSemaphoreRevokeScript } from './leasedSemaphoreRevokeScript.js';

/** What `unlock --force` will do to one object: said before asking, done after. */
export interface ForceUnlockPlan {
  /** One sentence for the confirmation prompt. */
  readonly description: string;
  /** The keys that hold what the prompt named (its holders, count or permits): the unlock must not outlive a change to them. */
  readonly watched: readonly string[];
  /**
   * Does it, each script through `run`, announcing with `publishCommand`; answers what happened, in one line.
   * A lock whose kind changed since is unlocked as what it is now.
   */
  run(run: RunScript, publishCommand: string): Promise<string>;
}

/**
 * How each kind is force-unlocked, as its Redisson counterpart does it: a lock, a fair lock and a read-write
 * lock as the client's own `forceUnlock` does (`forceUnlockAnyKind`): deleted, and their waiters woken as a
 * release of that kind wakes them; a group lock by freeing all its values and waking every waiter; a semaphore
 * with leased permits by taking every permit back; a latch by
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
      return lockPlan(name, 'lock', `Delete lock "${name}" held by ${holders} and wake a waiter.`, (done) =>
        done.unlocked ? `unlocked ${what(done.kind, name)} (was held by ${holders})` : `${what(done.kind, name)} was already free`,
      );
    case 'fairLock':
      return lockPlan(
        name,
        'fairLock',
        object.holders.length > 0
          ? `Delete fair lock "${name}" held by ${holders}, drop queued waiters whose time ran out, and wake the head of the queue.`
          : `Fair lock "${name}" is not held: drop queued waiters whose time ran out and wake the head of the queue.`,
        (done) => {
          if (done.unlocked) return `unlocked ${what(done.kind, name)} (was held by ${holders})`;
          return done.kind === 'fairLock' ? `fair lock "${name}" was not held; woke the head of its queue` : `${what(done.kind, name)} was already free`;
        },
      );
    case 'readWriteLock':
      return lockPlan(
        name,
        'readWriteLock',
        `Delete ${object.mode} lock "${name}" held by ${holders} and wake ${object.mode === 'write' ? 'every waiter' : 'a waiting writer'}.`,
        (done) => {
          if (!done.unlocked) return `${what(done.kind, name)} was already free`;
          return done.kind === 'readWriteLock'
            ? `unlocked read-write lock "${name}" (was ${object.mode}-locked by ${holders})`
            : `unlocked ${what(done.kind, name)} (was held by ${holders})`;
        },
      );
    case 'groupLock': {
      if (object.holders.length === 0) throw notHeld(name, 'no value of the group is held');
      const group = groupLockKeys(name);
      const owners = object.holders.map((holder) => `${holder.id} (${plural(holder.holds, 'value')})`).join(', ');
      return scriptPlan(
        `Free all ${plural(object.values, 'value')} of group lock "${name}" held by ${owners} and wake every waiter.`,
        [group.lock],
        groupLockForceUnlockScript,
        [group.lock, group.channel, group.holds],
        (publish) => [publish],
        (freed) => (freed > 0 ? `unlocked group lock "${name}" (${plural(freed, 'value')}, held by ${owners})` : `group lock "${name}" was already free`),
      );
    }
    case 'leasedSemaphore':
      if (object.holders.length === 0) throw notHeld(name, 'no permit is leased');
      return scriptPlan(
        `Take back all ${plural(object.holders.length, 'leased permit')} of semaphore "${name}" (as if their leases ran out) and wake its waiters.`,
        [keys.main, keys.permitLeases],
        leasedSemaphoreRevokeScript,
        [keys.main, keys.permitLeases, keys.semaphoreChannel],
        (publish) => [publish],
        (returned) => `took back ${plural(returned, 'permit')} of semaphore "${name}"`,
      );
    case 'latch':
      return scriptPlan(
        `Open latch "${name}" (count ${object.count} → 0) and release everyone awaiting it.`,
        [keys.main],
        latchOpenScript,
        [keys.main, keys.latchChannel],
        (publish) => latchPublishArgs(latchKeys(name), publish),
        (opened) => (opened ? `opened latch "${name}"` : `latch "${name}" was already open`),
      );
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
 * A lock of any kind, force-unlocked as the client's own `forceUnlock` does (`forceUnlockAnyKind`), starting
 * with the kind `ls` saw: one that is of another kind (a fair lock nobody waits for looks like a plain lock) is
 * unlocked as what it is, by another try, after a confirmation each in a transaction of its own. The
 * scripts themselves, not the client's method: a name the client API refuses (a lone brace, written by another
 * library or by hand) is still a lock `ls` lists and an operator may free. Only dead waiters past their score
 * leave a fair line: the CLI does not know the clients' `fairLockWaiterTimeoutMs`.
 */
function lockPlan(name: string, kind: LockKind, description: string, report: (done: ForceUnlocked) => string): ForceUnlockPlan {
  return {
    description,
    // The hash of holders. Not a fair lock's line: the unlock wakes whichever waiter heads it then.
    watched: [familyKeys(name).main],
    run: async (run, publishCommand) =>
      report(await forceUnlockAnyKind(run, name, { publishCommand, handoffMs: DEFAULT_HANDOFF_MS, fairWaiterTimeoutMs: 0 }, kind)),
  };
}

/** An object unlocked by one admin script, which gets the publish command its clients use. */
function scriptPlan<R>(
  description: string,
  watched: readonly string[],
  script: Script<R>,
  keys: readonly string[],
  args: (publishCommand: string) => (string | number)[],
  report: (reply: R) => string,
): ForceUnlockPlan {
  return { description, watched, run: async (run, publishCommand) => report(await run(script, keys, args(publishCommand))) };
}

/** Runs the plan through a connection of rxlock's Redis store (closed afterwards), as its clients run their scripts. */
export async function runPlan(connection: Connection, name: string, plan: ForceUnlockPlan): Promise<string> {
  const store = redisStore(connection.redis).connect(monotonicScheduler);
  try {
    return await plan.run((script, keys, args) => lastValueFrom(store.run(script, keys, args)), store.publishCommand);
  } catch (error) {
    throw withKeyNamed(error, name);
  } finally {
    await store.close();
  }
}

/** A script's error for a key of another type as the CLI's error naming that key; any other error as it is. */
export function withKeyNamed(error: unknown, name: string): unknown {
  if (!(error instanceof StoreError) || error.code !== 'wrongtype') return error;
  const { key, type } = wrongTypeOf(error.message, name);
  return wrongType(name, key, type);
}
