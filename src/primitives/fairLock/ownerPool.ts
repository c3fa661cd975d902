import type { ClientCore } from '../../engine/ClientCore.js';
import { pooledChannel, unregister, type FairChannel } from './fairChannel.js';
import type { FairLockKeys } from './fairLockKeys.js';

/** How many idle owners a client keeps, over all fair lock names. */
const MAX_IDLE_OWNERS = 256;

/**
 * Owners of a client's fair lock acquisitions, reused per name. A fair waiter listens on a channel of its
 * own (`redisson_lock__channel:{name}:<clientId>:<owner>`), which the wake-up hub keeps subscribed for a
 * grace period after the wait; an acquisition that reuses the owner of an earlier one finds it still
 * subscribed, and saves the SUBSCRIBE, the attempt that follows its confirmation and the UNSUBSCRIBE.
 * Redisson's thread ids give it the same reuse for free. The pool keeps each owner's `FairChannel`, so a
 * reused owner also needs none of its strings built again.
 *
 * An owner is reused as soon as its acquisition ended, even with that acquisition's release still in
 * flight: every fair hold has its own hold id and every wait its own wait id, which the scripts check, so
 * nothing the earlier acquisition sent (a release, a retried release, a compensation) can touch a later one.
 */
class OwnerPool {
  /**
   * Idle owners by full lock name, the most recently returned last. A name stays listed while it has no idle
   * owner (its acquisitions take one and give it back over and over), so that no map entry churns.
   */
  readonly #idle = new Map<string, { owners: FairChannel[]; usedAt: number }>();
  #size = 0;
  #tick = 0;

  take(fullName: string): FairChannel | undefined {
    const owner = this.#idle.get(fullName)?.owners.pop();
    if (owner !== undefined) this.#size--;
    return owner;
  }

  give(fullName: string, owner: FairChannel): void {
    let entry = this.#idle.get(fullName);
    if (entry === undefined) this.#idle.set(fullName, (entry = { owners: [], usedAt: 0 }));
    entry.owners.push(owner);
    entry.usedAt = ++this.#tick;
    this.#size++;
    if (this.#size > MAX_IDLE_OWNERS || this.#idle.size > 2 * MAX_IDLE_OWNERS) this.#evict();
  }

  /** Lets the least recently used names' owners go, and forgets names without idle owners. */
  #evict(): void {
    while (this.#size > MAX_IDLE_OWNERS) {
      let oldest: { owners: FairChannel[]; usedAt: number } | undefined;
      for (const entry of this.#idle.values()) if (entry.owners.length > 0 && (oldest === undefined || entry.usedAt < oldest.usedAt)) oldest = entry;
      if (oldest === undefined) break;
      unregister(oldest.owners.shift() as FairChannel);
      this.#size--;
    }
    for (const [name, entry] of this.#idle) if (entry.owners.length === 0) this.#idle.delete(name);
  }
}

const pools = new WeakMap<ClientCore, OwnerPool>();

function poolOf(core: ClientCore): OwnerPool {
  let pool = pools.get(core);
  if (pool === undefined) pools.set(core, (pool = new OwnerPool()));
  return pool;
}

/** An owner that no other acquisition of this client uses for `keys.lock` right now. */
export function takeOwner(core: ClientCore, keys: FairLockKeys): FairChannel {
  return poolOf(core).take(keys.lock) ?? pooledChannel(core, keys, core.newOwner());
}

/** Gives an owner from `takeOwner` back when its acquisition (and hold) ended. */
export function returnOwner(owner: FairChannel): void {
  poolOf(owner.core).give(owner.lockKey, owner);
}
