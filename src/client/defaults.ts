/** The defaults of the client options, in one place (`createLockClient` and `createRedlockClient` read them). */
export const CLIENT_DEFAULTS = {
  /** Redisson's lockWatchdogTimeout. */
  watchdogTimeoutMs: 30_000,
  /** Redlock's and Redisson's RedLock's clock drift factor. */
  driftFactor: 0.01,
  driftMs: 2,
  commandTimeoutMs: 5_000,
  handoffMs: 100,
  fairLockWaiterTimeoutMs: 10_000,
  replicas: 0,
  /** Redisson's slavesSyncTimeout. */
  replicaTimeoutMs: 1_000,
  restartGuardMs: 0,
  keyPrefix: '',
} as const;
