import type { RunOptions, StoreConnection } from '../Store.js';

/**
 * Makes every script on `connection` wait for `replicas` replica acknowledgements (`WAIT`, at most
 * `timeoutMs`). A script that none acknowledged fails with `StoreError('no-replicas')`, whose outcome counts
 * as unknown: an acquire is then released again and fails, a renewal is retried until the hold's deadline,
 * a release is reported as failed. This is Redisson's `checkLockSyncedSlaves`.
 */
export function acknowledgedByReplicas(connection: StoreConnection, replicas: number, timeoutMs: number): StoreConnection {
  if (replicas <= 0) return connection;
  const withAcks = (options: RunOptions | undefined): RunOptions => ({
    replicas: options?.replicas ?? replicas,
    replicaTimeoutMs: options?.replicaTimeoutMs ?? timeoutMs,
  });
  return {
    run: (script, keys, args, options) => connection.run(script, keys, args, withAcks(options)),
    ...(connection.call === undefined
      ? {}
      : { call: (script, keys, args, observer, options) => connection.call?.(script, keys, args, observer, withAcks(options)) }),
    listen: (channel) => connection.listen(channel),
    get publishCommand() {
      return connection.publishCommand;
    },
    get subscribersVisible() {
      return connection.subscribersVisible === true;
    },
    epoch: () => connection.epoch(),
    slotOf: (key) => connection.slotOf(key),
    evictionPolicy: () => connection.evictionPolicy(),
    close: () => connection.close(),
  };
}
