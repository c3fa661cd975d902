import type { ClientCore } from '../../engine/ClientCore.js';
import { fire } from '../../engine/send.js';
import type { Wake, WakePolicy } from '../../engine/WakeHub.js';
import { LOCK_GRANT_PREFIX } from './handOn.js';
import { lockKeys } from './lockKeys.js';
import { lockLeaveScript } from './releaseScript.js';

/** An acquisition a hand-off message can reach: it takes the grant from there (see `HandOffClock`). */
export interface HandOffTarget {
  handed(token: number, serverUs: number): void;
}

const NO_WAKE: Wake = { wake: 'none' };

/**
 * Per client, the acquisitions of each lock (by full name) that releases may hand the lock to, by their
 * waiter member. An acquisition stays listed from the moment it may be queued until its subscription ended,
 * so that a hand-off message that comes late still finds it (and is not given back from under its hold).
 */
const registries = new WeakMap<ClientCore, Map<string, Map<string, HandOffTarget>>>();

function registryOf(core: ClientCore): Map<string, Map<string, HandOffTarget>> {
  let registry = registries.get(core);
  if (registry === undefined) registries.set(core, (registry = new Map<string, Map<string, HandOffTarget>>()));
  return registry;
}

export function listHandOffTarget(core: ClientCore, lockKey: string, member: string, target: HandOffTarget): void {
  const registry = registryOf(core);
  let targets = registry.get(lockKey);
  if (targets === undefined) registry.set(lockKey, (targets = new Map<string, HandOffTarget>()));
  targets.set(member, target);
}

export function unlistHandOffTarget(core: ClientCore, lockKey: string, member: string, target: HandOffTarget): void {
  const registry = registryOf(core);
  const targets = registry.get(lockKey);
  if (targets?.get(member) !== target) return;
  targets.delete(member);
  if (targets.size === 0) registry.delete(lockKey);
}

/**
 * How a message on the client's hand-off channel of `lockKey` wakes its waiters:
 * `rxlock:grant <token> <server µs> <member>` goes to the acquisition listed as `member`, which takes the
 * grant from it. A hand-off to a member nobody here lists (its acquisition ended, and its leave was lost or
 * crossed the hand-off) is given back: released by that member's field and hold id, which hands it on.
 */
export function handOffPolicy(core: ClientCore, lockKey: string): WakePolicy {
  return (message) => {
    if (!message.startsWith(LOCK_GRANT_PREFIX)) return NO_WAKE;
    const tokenEnd = message.indexOf(' ', LOCK_GRANT_PREFIX.length);
    const timeEnd = message.indexOf(' ', tokenEnd + 1);
    const member = message.slice(timeEnd + 1);
    const target = registries.get(core)?.get(lockKey)?.get(member);
    if (target === undefined) {
      giveBack(core, lockKey, member);
      return NO_WAKE;
    }
    target.handed(Number(message.slice(LOCK_GRANT_PREFIX.length, tokenEnd)), Number(message.slice(tokenEnd + 1, timeEnd)));
    return { wake: 'id', id: member };
  };
}

function giveBack(core: ClientCore, lockKey: string, member: string): void {
  fire(core, {
    script: lockLeaveScript,
    keys: lockKeys(lockKey).releaseKeys,
    args: [member, core.settings.handoffMs, core.connection.publishCommand],
  });
}
