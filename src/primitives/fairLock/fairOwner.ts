import type { ClientCore } from '../../engine/ClientCore.js';
import { confirmWindowMs } from '../../engine/ClientCore.js';
import type { Script } from '../../store/Script.js';
import type { ScriptCall } from '../../store/Store.js';
import { fairArgv, type FairArgs } from './fairQueue.js';
import { fairLockKeys, waiterChannel, type FairLockKeys } from './fairLockKeys.js';

/** What one hold adds to a fair lock script's arguments. */
export type FairHoldArgs = Pick<FairArgs, 'leaseMs' | 'holdId' | 'waitId' | 'fencing' | 'enqueue' | 'direct' | 'nonReentrant'>;

/**
 * One owner of one fair lock on one client: its field `<clientId>:<owner>` in the lock's queue and hash, and
 * its channel `redisson_lock__channel:{name}:<field>`, where releases wake it or hand it the lock. It keeps
 * only the owner's own strings: keys come from the per-name cache.
 */
export class FairOwner {
  readonly core: ClientCore;
  /** The lock hash's key, which is the lock's full name. */
  readonly lockKey: string;
  readonly owner: string;
  readonly field: string;

  constructor(core: ClientCore, lockKey: string, owner: string) {
    this.core = core;
    this.lockKey = lockKey;
    this.owner = owner;
    this.field = `${core.clientId}:${owner}`;
  }

  get keys(): FairLockKeys {
    return fairLockKeys(this.lockKey);
  }

  get channel(): string {
    return waiterChannel(this.keys, this.field);
  }

  /** A call of one of the fair lock's scripts by this owner: the owner's and the client's parts of `fairArgv`, plus the hold's. */
  call<R>(script: Script<R>, hold: FairHoldArgs): ScriptCall<R> {
    const { core } = this;
    const keys = this.keys;
    // Listed rather than spread: `{ ...hold, field, … }` takes V8's slow path on every call.
    const args = fairArgv({
      leaseMs: hold.leaseMs,
      holdId: hold.holdId,
      waitId: hold.waitId,
      fencing: hold.fencing,
      enqueue: hold.enqueue,
      field: this.field,
      waiterTimeoutMs: core.settings.fairLockWaiterTimeoutMs,
      publishCommand: core.connection.publishCommand,
      channelPrefix: keys.channelPrefix,
      direct: hold.direct,
      nonReentrant: hold.nonReentrant,
      confirmMs: confirmWindowMs(core.settings),
    });
    return { script, keys: keys.list, args };
  }
}
