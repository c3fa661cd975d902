import type { ClientLocal } from '../../engine/ClientCore.js';
import { FairOwner } from './fairOwner.js';

/** How many idle owners a client keeps, over all fair lock names. */
const MAX_IDLE_OWNERS = 256;

/**
 * Owners of a client's fair lock acquisitions, reused per name. A fair waiter listens on a channel of its
 * own (`redisson_lock__channel:{name}:<clientId>:<owner>`), which the wake-up hub keeps subscribed for a
 * grace period after the wait; an acquisition that reuses the owner of an earlier one finds it still
 * subscribed, and saves the SUBSCRIBE, the attempt that follows its confirmation and the UNSUBSCRIBE.
 * Redisson's thread ids give it the same reuse for free.
 *
 * An owner is reused as soon as its acquisition ended, even with that acquisition's release still in
 * flight: every fair hold has its own hold id and every wait its own wait id, which the scripts check, so
 * nothing the earlier acquisition sent (a release, a retried release, a compensation) can touch a later one.
 */
export class OwnerPool {
  /**
   * Idle owners by full lock name, the most recently returned last. A name stays listed while it has no idle
   * owner (its acquisitions take one and give it back over and over), so that no map entry churns.
   */
  readonly #idle = new Map<string, { owners: FairOwner[]; usedAt: number }>();
  #size = 0;
  #tick = 0;

  take(lockKey: string): FairOwner | undefined {
    const owner = this.#idle.get(lockKey)?.owners.pop();
    if (owner !== undefined) this.#size--;
    return owner;
  }

  give(owner: FairOwner): void {
    let entry = this.#idle.get(owner.lockKey);
    if (entry === undefined) this.#idle.set(owner.lockKey, (entry = { owners: [], usedAt: 0 }));
    entry.owners.push(owner);
    entry.usedAt = ++this.#tick;
    this.#size++;
    if (this.#size > MAX_IDLE_OWNERS || this.#idle.size > 2 * MAX_IDLE_OWNERS) this.#evict();
  }

  /** Lets the least recently used names' owners go, and forgets names without idle owners. */
  #evict(): void {
    while (this.#size > MAX_IDLE_OWNERS) {
      let oldest: { owners: FairOwner[]; usedAt: number } | undefined;
      for (const entry of this.#idle.values()) if (entry.owners.length > 0 && (oldest === undefined || entry.usedAt < oldest.usedAt)) oldest = entry;
      if (oldest === undefined) break;
      oldest.owners.shift();
      this.#size--;
    }
    for (const [name, entry] of this.#idle) if (entry.owners.length === 0) this.#idle.delete(name);
  }
}

/** Each client's pool of fair lock owners. */
export const FAIR_OWNERS: ClientLocal<OwnerPool> = { create: () => new OwnerPool() };
