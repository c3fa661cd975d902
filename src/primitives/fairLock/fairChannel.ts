import type { ClientCore } from '../../engine/ClientCore.js';
import type { Expiry } from '../../engine/HeldLease.js';
import type { RenewKind, RenewTarget } from '../../engine/Renewer.js';
import { fire } from '../../engine/send.js';
import type { Script } from '../../store/Script.js';
import type { ScriptCall } from '../../store/Store.js';
import type { Wake, WakePolicy } from '../../engine/WakeHub.js';
import { lockKeys } from '../lock/lockKeys.js';
import { lockRenewKind } from '../lock/renewScript.js';
import { fairArgv, GRANT_MESSAGE_PREFIX, type FairArgs } from './fairQueue.js';
import { fairLockKeys, waiterChannel, type FairLockKeys } from './fairLockKeys.js';
import type { FairWaiter } from './fairWaiter.js';
import { fairLockLeaveScript } from './leaveScript.js';

/** Fair holds renew like plain ones: the lock hash and the hold ids. */
const FAIR_RENEW_KIND = lockRenewKind((lockKey) => lockKeys(lockKey).holds);

const NO_WAKE: Wake = { wake: 'none' };
const WAKE_ONE: Wake = { wake: 'count', count: 1 };

/**
 * One owner of one fair lock on one client: its field `<clientId>:<owner>`, its channel
 * `redisson_lock__channel:{name}:<field>`, and the acquisitions of that owner listening there (several
 * only for an owner that re-enters). A pooled owner keeps it from one acquisition to the next (see
 * `ownerPool`) and stays registered while pooled. It is also its holds' watchdog expiry.
 *
 * Every held fair lock keeps one, so it stores only the owner's own strings: the channel name and the
 * wake-up policy are made when a wait needs them (an uncontended acquisition never does), and the keys
 * come from the per-name cache.
 */
export class FairChannel implements RenewTarget {
  readonly core: ClientCore;
  /** The lock hash's key, which is the lock's full name. */
  readonly lockKey: string;
  readonly owner: string;
  readonly field: string;
  /** Whether the owner pool keeps it (it is then registered until the pool lets it go). */
  readonly pooled: boolean;
  /** The next registered owner of the same lock name on this client (see `registered`). */
  nextOfName: FairChannel | undefined;
  /** The acquisitions listening: one, or an array when the owner re-enters (no array for the common case). */
  #listening: FairWaiter | FairWaiter[] | undefined;
  #policy: WakePolicy | undefined;

  constructor(core: ClientCore, keys: FairLockKeys, owner: string, pooled: boolean) {
    this.core = core;
    this.lockKey = keys.lock;
    this.owner = owner;
    this.field = `${core.clientId}:${owner}`;
    this.pooled = pooled;
  }

  get keys(): FairLockKeys {
    return fairLockKeys(this.lockKey);
  }

  get channel(): string {
    return waiterChannel(this.keys, this.field);
  }

  /**
   * How a message on the channel wakes local waiters: a hand-off goes to the acquisition it names (any
   * others of the owner re-enter with an attempt); Redisson's `0` means "the lock is yours to take". The
   * hub may keep the first policy of a channel while later `FairChannel`s of it come and go, so it reads
   * the registered owner's current listeners.
   */
  get policy(): WakePolicy {
    return (this.#policy ??= (message) => dispatch(this, message));
  }

  /** The watchdog expiry of this owner's holds: the channel is its own `Expiry` (no object per hold). */
  get watchdog(): Expiry {
    return this;
  }

  get type(): 'watchdog' {
    return 'watchdog';
  }

  get renewKind(): RenewKind {
    return FAIR_RENEW_KIND;
  }

  get key(): string {
    return this.lockKey;
  }

  get listeners(): number {
    const listening = this.#listening;
    return listening === undefined ? 0 : Array.isArray(listening) ? listening.length : 1;
  }

  add(waiter: FairWaiter): void {
    const listening = this.#listening;
    if (listening === undefined) this.#listening = waiter;
    else if (Array.isArray(listening)) listening.push(waiter);
    else this.#listening = [listening, waiter];
  }

  remove(waiter: FairWaiter): void {
    const listening = this.#listening;
    if (listening === waiter) {
      this.#listening = undefined;
    } else if (Array.isArray(listening)) {
      const index = listening.indexOf(waiter);
      if (index !== -1) listening.splice(index, 1);
      if (listening.length === 1) this.#listening = listening[0];
    }
  }

  find(waitId: string | undefined): FairWaiter | undefined {
    const listening = this.#listening;
    if (listening === undefined || !Array.isArray(listening)) return listening?.waitId === waitId ? listening : undefined;
    return listening.find((waiter) => waiter.waitId === waitId);
  }

  /** A call of one of the fair lock's scripts by this owner: the owner's and the client's parts of `fairArgv`, plus the hold's. */
  call<R>(script: Script<R>, hold: FairHoldArgs): ScriptCall<R> {
    const { core } = this;
    const keys = this.keys;
    // Listed rather than spread: `{ ...hold, field, … }` takes V8's slow path (about 5 µs a call on Node 20).
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
      // With replica acknowledgements, a grant must come from the waiter's own (acknowledged) attempt.
      direct: core.settings.replicas === 0,
    });
    return { script, keys: keys.list, args };
  }
}

/** What one hold adds to a fair lock script's arguments. */
export type FairHoldArgs = Pick<FairArgs, 'leaseMs' | 'holdId' | 'waitId' | 'fencing' | 'enqueue'>;

/** Per client: registered owners by lock name, each name's owners chained by `nextOfName` (there is rarely more than one). */
const registries = new WeakMap<ClientCore, Map<string, FairChannel>>();

function registryOf(core: ClientCore): Map<string, FairChannel> {
  let registry = registries.get(core);
  if (registry === undefined) registries.set(core, (registry = new Map<string, FairChannel>()));
  return registry;
}

/** The registered owner `field` of `lockKey`, if any. */
function registered(core: ClientCore, lockKey: string, field: string): FairChannel | undefined {
  for (let fair = registryOf(core).get(lockKey); fair !== undefined; fair = fair.nextOfName) if (fair.field === field) return fair;
  return undefined;
}

function register(fair: FairChannel): void {
  const registry = registryOf(fair.core);
  fair.nextOfName = registry.get(fair.lockKey);
  registry.set(fair.lockKey, fair);
}

/** A new pooled owner's channel, registered until `unregister` (when the pool lets it go). */
export function pooledChannel(core: ClientCore, keys: FairLockKeys, owner: string): FairChannel {
  const fair = new FairChannel(core, keys, owner, true);
  if (registered(core, fair.lockKey, fair.field) === undefined) register(fair);
  return fair;
}

export function unregister(fair: FairChannel): void {
  if (fair.listeners > 0) return;
  const registry = registryOf(fair.core);
  let previous: FairChannel | undefined;
  for (let current = registry.get(fair.lockKey); current !== undefined; previous = current, current = current.nextOfName) {
    if (current !== fair) continue;
    if (previous !== undefined) previous.nextOfName = fair.nextOfName;
    else if (fair.nextOfName !== undefined) registry.set(fair.lockKey, fair.nextOfName);
    else registry.delete(fair.lockKey);
    fair.nextOfName = undefined;
    return;
  }
}

/**
 * Makes `waiter` hear hand-offs on its owner's channel until `stopListening`: on `pooled`, the owner's
 * channel from the pool, or else on the channel of `owner`, shared with its other acquisitions listening now.
 */
export function listen(core: ClientCore, keys: FairLockKeys, owner: string, waiter: FairWaiter, pooled?: FairChannel): FairChannel {
  let fair = pooled;
  if (fair === undefined) {
    fair = registered(core, keys.lock, `${core.clientId}:${owner}`);
    if (fair === undefined) register((fair = new FairChannel(core, keys, owner, false)));
  }
  fair.add(waiter);
  return fair;
}

export function stopListening(fair: FairChannel, waiter: FairWaiter): void {
  fair.remove(waiter);
  if (!fair.pooled) unregister(fair);
}

function dispatch(fair: FairChannel, message: string): Wake {
  const listening = registered(fair.core, fair.lockKey, fair.field);
  if (message.startsWith(GRANT_MESSAGE_PREFIX)) {
    // `rxlock:grant <token> <server µs> <waitId> <holdId>`; read by index: it runs once per hand-off, mostly unoptimized.
    const words = message.split(' ');
    const target = listening?.find(words[3]);
    if (target === undefined) {
      giveBack(fair, words[4] ?? '');
      return NO_WAKE;
    }
    target.handed(Number(words[1]), Number(words[2]));
  }
  const count = listening?.listeners ?? 0;
  if (count === 0) return NO_WAKE;
  return count === 1 ? WAKE_ONE : { wake: 'count', count };
}

/** A hand-off reached an acquisition that is over (its leave was lost): release it, which hands the lock on. */
function giveBack(fair: FairChannel, holdId: string): void {
  fire(fair.core, fair.call(fairLockLeaveScript, { leaseMs: 0, holdId, waitId: '', fencing: false, enqueue: true }));
}
