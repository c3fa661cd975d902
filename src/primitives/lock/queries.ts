import type { ClientCore } from '../../engine/ClientCore.js';
import { toLockError } from '../../engine/toLockError.js';
import { send } from '../../engine/send.js';
import { ClientClosedError } from '../../errors/ClientClosedError.js';
import type { Script } from '../../store/Script.js';
import { assertName, assertOwner } from '../../util/validate.js';
import { contextOwner } from '../reentrancy.js';
import { lockInspectScript, type LockState } from './adminScripts.js';
import { forceUnlockAnyKind, type RunScript } from './forceUnlockAnyKind.js';

/** Runs one admin script for `name` and maps store errors to the public ones. */
export async function runFor<R>(core: ClientCore, name: string, script: Script<R>, keys: readonly string[], args: (string | number)[]): Promise<R> {
  if (core.closed) throw new ClientClosedError(name);
  try {
    return await new Promise<R>((resolve, reject) => send(core, core.connection.run(script, keys, args), { next: resolve, error: reject }));
  } catch (error) {
    throw toLockError(error, name, '');
  }
}

function inspect(core: ClientCore, where: string, name: unknown, field: string): Promise<LockState> {
  assertName(name, where);
  return runFor(core, name, lockInspectScript, [core.keyPrefix + name], [field]);
}

/** Whether anybody holds the lock. */
export async function isLocked(core: ClientCore, name: string): Promise<boolean> {
  return (await inspect(core, 'isLocked', name, '')).exists;
}

/**
 * How many holds an owner of this client has on the lock: `owner`, or else the enclosing `withLock`'s
 * owner. Without either, the holds of whoever holds it.
 */
export async function holdCount(core: ClientCore, name: string, owner?: string): Promise<number> {
  if (owner !== undefined) assertOwner(owner, 'holdCount');
  assertName(name, 'holdCount');
  const who = owner ?? contextOwner(core, core.keyPrefix + name);
  return (await inspect(core, 'holdCount', name, who === undefined ? '' : `${core.clientId}:${who}`)).holdCount;
}

/** The lock's remaining time to live in ms: -2 when it is not held, -1 when it never expires. */
export async function remainingTtl(core: ClientCore, name: string): Promise<number> {
  return (await inspect(core, 'remainingTtl', name, '')).ttl;
}

/**
 * Deletes the lock whoever holds it, a plain, fair or read-write lock alike, and wakes its waiters as a release
 * of its kind does. Resolves true if it was held. Its holders learn at their next renewal.
 */
export async function forceUnlock(core: ClientCore, name: string): Promise<boolean> {
  assertName(name, 'forceUnlock');
  const run: RunScript = (script, keys, args) => runFor(core, name, script, keys, args);
  const settings = {
    publishCommand: core.connection.publishCommand,
    handoffMs: core.settings.handoffMs,
    fairWaiterTimeoutMs: core.settings.fairLockWaiterTimeoutMs,
  };
  try {
    return (await forceUnlockAnyKind(run, core.keyPrefix + name, settings)).unlocked;
  } catch (error) {
    throw toLockError(error, name, '');
  }
}
