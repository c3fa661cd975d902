import type { ClientCore } from '../../engine/ClientCore.js';
import type { Expiry } from '../../engine/HeldLease.js';
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
 * `ownerPool`), with its strings and its wake-up policy, and stays registered while pooled.
 */
export class FairChannel {
  readonly core: ClientCore;
  /** The lock hash's key, which is the lock's full name: the other keys come from the cache when needed, not kept per owner. */
  readonly lockKey: string;
  readonly owner: string;
  readonly field: string;
  readonly channel: string;
  /** Whether the owner pool keeps it (it is then registered until the pool lets it go). */
  readonly pooled: boolean;
  /** The watchdog expiry of this owner's holds. */
  readonly watchdog: Expiry;
  /** Replaced by a one-element array when the first waiter comes: a pushed-to empty array grows to 17 slots. */
  waiters: FairWaiter[] = [];
  /**
   * How a message on the channel wakes local waiters: a hand-off goes to the acquisition it names (any
   * others of the owner re-enter with an attempt); Redisson's `0` means "the lock is yours to take". The
   * hub may keep the first policy of a channel while later `FairChannel`s of it come and go, so it reads
   * the channel's current listeners.
   */
  readonly policy: WakePolicy;

  constructor(core: ClientCore, keys: FairLockKeys, owner: string, pooled: boolean) {
    this.core = core;
    this.lockKey = keys.lock;
    this.owner = owner;
    this.field = `${core.clientId}:${owner}`;
    this.channel = waiterChannel(keys, this.field);
    this.pooled = pooled;
    this.watchdog = { type: 'watchdog', renewKind: FAIR_RENEW_KIND, key: keys.lock, field: this.field };
    this.policy = (message) => dispatch(this, message);
  }

  get keys(): FairLockKeys {
    return fairLockKeys(this.lockKey);
  }

  /** A call of one of the fair lock's scripts by this owner: the owner's and the client's parts of `fairArgv`, plus the hold's. */
  call<R>(script: Script<R>, hold: FairHoldArgs): ScriptCall<R> {
    const { core } = this;
    const keys = this.keys;
    const args = fairArgv({
      ...hold,
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

const registries = new WeakMap<ClientCore, Map<string, FairChannel>>();

function registryOf(core: ClientCore): Map<string, FairChannel> {
  let registry = registries.get(core);
  if (registry === undefined) registries.set(core, (registry = new Map<string, FairChannel>()));
  return registry;
}

/** A new pooled owner's channel, registered until `unregister` (when the pool lets it go). */
export function pooledChannel(core: ClientCore, keys: FairLockKeys, owner: string): FairChannel {
  const fair = new FairChannel(core, keys, owner, true);
  const registry = registryOf(core);
  if (!registry.has(fair.channel)) registry.set(fair.channel, fair);
  return fair;
}

export function unregister(fair: FairChannel): void {
  const registry = registryOf(fair.core);
  if (registry.get(fair.channel) === fair && fair.waiters.length === 0) registry.delete(fair.channel);
}

/**
 * Makes `waiter` hear hand-offs on its owner's channel until `stopListening`: on `pooled`, the owner's
 * channel from the pool, or else on the channel of `owner`, shared with its other acquisitions listening now.
 */
export function listen(core: ClientCore, keys: FairLockKeys, owner: string, waiter: FairWaiter, pooled?: FairChannel): FairChannel {
  let fair = pooled;
  if (fair === undefined) {
    const registry = registryOf(core);
    const channel = waiterChannel(keys, `${core.clientId}:${owner}`);
    fair = registry.get(channel);
    if (fair === undefined) registry.set(channel, (fair = new FairChannel(core, keys, owner, false)));
  }
  if (fair.waiters.length === 0) fair.waiters = [waiter];
  else fair.waiters.push(waiter);
  return fair;
}

export function stopListening(fair: FairChannel, waiter: FairWaiter): void {
  const { waiters } = fair;
  const index = waiters.indexOf(waiter);
  if (index !== -1) waiters.splice(index, 1);
  if (waiters.length === 0 && !fair.pooled) unregister(fair);
}

function dispatch(fair: FairChannel, message: string): Wake {
  const waiters = registryOf(fair.core).get(fair.channel)?.waiters;
  if (message.startsWith(GRANT_MESSAGE_PREFIX)) {
    // `rxlock:grant <token> <server µs> <waitId> <holdId>`; read by index: it runs once per hand-off, mostly unoptimized.
    const words = message.split(' ');
    const target = waiters === undefined ? undefined : findWaiter(waiters, words[3]);
    if (target === undefined) {
      giveBack(fair, words[4] ?? '');
      return NO_WAKE;
    }
    target.handed(Number(words[1]), Number(words[2]));
  }
  if (waiters === undefined || waiters.length === 0) return NO_WAKE;
  return waiters.length === 1 ? WAKE_ONE : { wake: 'count', count: waiters.length };
}

function findWaiter(waiters: readonly FairWaiter[], waitId: string | undefined): FairWaiter | undefined {
  for (const waiter of waiters) if (waiter.waitId === waitId) return waiter;
  return undefined;
}

/** A hand-off reached an acquisition that is over (its leave was lost): release it, which hands the lock on. */
function giveBack(fair: FairChannel, holdId: string): void {
  fire(fair.core, fair.call(fairLockLeaveScript, { leaseMs: 0, holdId, waitId: '', fencing: false, enqueue: true }));
}
