/** A held lock (or permit). It is valid while the stream that emitted it is subscribed and has not errored. */
export interface Lease {
  /** The name the lock was acquired under. */
  readonly name: string;
  /** This hold's owner id, the `<owner>` part of the `<clientId>:<owner>` hash field. */
  readonly owner: string;
  /** `scheduler.now()` when the grant arrived. */
  readonly acquiredAt: number;
  /** The fencing token of this grant when acquired with `fencing: true`: it grows with every grant of the name. */
  readonly token: number | undefined;
  /** Aborts when the lease ends: on release with an `AbortError`, on loss with the `LockLostError`. Pass it to promise-based work. */
  readonly signal: AbortSignal;
  /**
   * The latest `scheduler.now()` at which this holder can still be sure that it holds the lock: the send
   * time of the last confirmed acquire or renewal, plus the TTL, minus the drift allowance.
   */
  readonly deadline: number;
  /** True until the lease is released or lost, and only before its deadline. */
  readonly held: boolean;
}
