import type { ClientCore } from '../../engine/ClientCore.js';
import type { Expiry, HoldSpec, ReleaseReply } from '../../engine/Hold.js';
import type { ScriptCall } from '../../store/Store.js';
import { lockKeys, type LockKeys } from './lockKeys.js';
import { lockLeaseReleaseScript, lockLeaveScript } from './releaseScript.js';
import { lockRenewKind } from './renewScript.js';

/** How holds of the lock hash are renewed: the owner's field, and a reentrant owner's hold ids. */
export const LOCK_RENEW_KIND = lockRenewKind((lockKey) => lockKeys(lockKey).holds);

/** The owner-checked release of one hold. */
export function lockReleaseCall(core: ClientCore, keys: LockKeys, field: string, holdId: string | undefined): ScriptCall<ReleaseReply> {
  const { handoffMs } = core.settings;
  const publish = core.connection.publishCommand;
  const args = holdId === undefined ? [field, handoffMs, publish] : [field, handoffMs, publish, holdId];
  return { script: lockLeaseReleaseScript, keys: keys.releaseKeys, args };
}

/** A waiter (`member`) leaves the queue; a lock handed or reserved to it is released, which hands it on. */
export function leaveCall(core: ClientCore, keys: LockKeys, member: string): ScriptCall<unknown> {
  return { script: lockLeaveScript, keys: keys.releaseKeys, args: [member, core.settings.handoffMs, core.connection.publishCommand] };
}

/**
 * A granted `lock$` hold: only what renewing and releasing it needs. Its release command is built when it is
 * sent, from the (cached) keys of the name, so that a held lock keeps no key strings but its own name. A
 * class: one lives as long as each held lock.
 */
export class LockHold implements HoldSpec {
  readonly core: ClientCore;
  readonly name: string;
  readonly owner: string;
  readonly token: number | undefined;
  readonly expiry: Expiry;
  /** `lock` or `spinLock` (one layout, two ways of waiting), for events. */
  readonly kind: 'lock' | 'spinLock';
  readonly #field: string;
  readonly #holdId: string | undefined;

  constructor(
    core: ClientCore,
    name: string,
    owner: string,
    token: number | undefined,
    expiry: Expiry,
    field: string,
    holdId: string | undefined,
    kind: 'lock' | 'spinLock' = 'lock',
  ) {
    this.core = core;
    this.name = name;
    this.owner = owner;
    this.token = token;
    this.expiry = expiry;
    this.#field = field;
    this.#holdId = holdId;
    this.kind = kind;
  }

  release(): ScriptCall<ReleaseReply> {
    return lockReleaseCall(this.core, lockKeys(this.core.keyPrefix + this.name), this.#field, this.#holdId);
  }
}
