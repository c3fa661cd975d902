import type { Script } from '../../store/Script.js';
import { StoreError } from '../../store/StoreError.js';
import { fairLockKeys } from '../fairLock/fairLockKeys.js';
import { fairArgv } from '../fairLock/fairQueue.js';
import { FORCE_UNLOCK_ARGS, fairLockForceUnlockScript } from '../fairLock/forceUnlockScript.js';
import { readWriteLockForceUnlockScript } from '../readWriteLock/forceUnlockScript.js';
import { readWriteLockKeys } from '../readWriteLock/readWriteLockKeys.js';
import { lockForceUnlockScript } from './adminScripts.js';
import type { ForceUnlockReply, LockKind } from './lockKind.js';
import { lockKeys } from './lockKeys.js';

/** Runs one script through some store; resolves with its parsed reply. */
export type RunScript = <R>(script: Script<R>, keys: readonly string[], args: (string | number)[]) => Promise<R>;

/** How the unlock wakes waiters: as the caller's clients listen and wait. */
export interface ForceUnlockSettings {
  readonly publishCommand: string;
  /** How long a plain lock is reserved for a waiter it cannot be handed to directly. */
  readonly handoffMs: number;
  /** The fair lock's `waiterTimeoutMs`, by which dead waiters at the head of its line are dropped (0: only those past their score). */
  readonly fairWaiterTimeoutMs: number;
}

/** What a force-unlock did: the kind of lock it found, and whether it was held (a fair lock's line is woken either way). */
export interface ForceUnlocked {
  readonly kind: LockKind;
  readonly unlocked: boolean;
}

/** Enough tries for a lock whose kind changes between two scripts (deleted and taken as another kind) a couple of times. */
const TRIES = 3;

/**
 * Force-unlocks the lock `fullName` whatever kind it is, each kind with its own script, as a release of that
 * kind wakes its waiters: a plain lock hands on to its longest waiter, a fair lock wakes the head of its line,
 * a read-write lock a writer (after a read lock) or everyone (after a write lock). Each script checks the kind
 * first and, when it is another, answers that kind without changing anything; `first` is the kind to try first.
 */
export async function forceUnlockAnyKind(run: RunScript, fullName: string, settings: ForceUnlockSettings, first: LockKind = 'lock'): Promise<ForceUnlocked> {
  let kind = first;
  for (let tries = 1; ; tries++) {
    const reply = await forceUnlockAs(run, kind, fullName, settings);
    if (typeof reply === 'boolean') return { kind, unlocked: reply };
    if (tries === TRIES) throw new StoreError('other', `"${fullName}" changed kind at every try to force-unlock it (last seen as ${reply})`, false);
    kind = reply;
  }
}

function forceUnlockAs(run: RunScript, kind: LockKind, fullName: string, settings: ForceUnlockSettings): Promise<ForceUnlockReply> {
  const fair = fairLockKeys(fullName);
  switch (kind) {
    case 'lock':
      return run(lockForceUnlockScript, [...lockKeys(fullName).releaseKeys, fair.queue, fair.timeouts], [settings.publishCommand, settings.handoffMs]);
    case 'fairLock':
      return run(
        fairLockForceUnlockScript,
        fair.list,
        fairArgv({
          ...FORCE_UNLOCK_ARGS,
          publishCommand: settings.publishCommand,
          channelPrefix: fair.channelPrefix,
          waiterTimeoutMs: settings.fairWaiterTimeoutMs,
        }),
      );
    case 'readWriteLock': {
      const keys = readWriteLockKeys(fullName);
      return run(readWriteLockForceUnlockScript, [keys.lock, keys.channel, keys.holds, fair.queue, fair.timeouts], [settings.publishCommand, keys.timeoutBase]);
    }
  }
}
