/** What both semaphores offer besides `acquire$`: the pool of permits itself. */
export interface PermitPool {
  /** The name the semaphore was created under. */
  readonly name: string;
  /** Sets the count to `permits` if the semaphore has no count yet. Resolves true if it did. */
  trySetPermits(permits: number): Promise<boolean>;
  /** Adds `permits` to the count (negative takes them away; the count may go below 0). Resolves with the new count. */
  addPermits(permits: number): Promise<number>;
  /** The permits nobody holds right now (0 when the semaphore has no count). */
  availablePermits(): Promise<number>;
  /** Deletes the count and rxlock's bookkeeping; holders' later releases change nothing. Resolves true if there was a count. */
  delete(): Promise<boolean>;
}
