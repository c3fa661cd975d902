import type { LockStore } from '../store/Store.js';
import type { RedisDriver } from '../store/redis/driver/RedisDriver.js';
import { driverStore } from '../store/redis/RedisStore.js';
import { LOCK_VOTES } from './lockVotes.js';
import { QuorumConnection, type QuorumSettings } from './QuorumConnection.js';

/** A store over independent masters: each client connects to every instance and decides by majority. */
export function redlockStore(instances: readonly RedisDriver[], settings: QuorumSettings): LockStore {
  // Classic pub/sub on every instance: the scripts receive one publish command for all of them.
  const stores = instances.map((driver) => driverStore(driver, { shardedPubSub: false }));
  const clustered = instances.some((driver) => driver.isCluster);
  return {
    connect: (scheduler) =>
      new QuorumConnection(
        stores.map((store) => store.connect(scheduler)),
        LOCK_VOTES,
        scheduler,
        settings,
        clustered,
      ),
  };
}
