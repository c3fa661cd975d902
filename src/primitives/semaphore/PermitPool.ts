/** What both semaphores offer besides `acquire$`: the pool of permits itself. */
export interface PermitPool {
  /** The name the semaphore was created under. */
  readonly name: string;
  /**
   * Sets the count to `permits` if the semaphore has no count yet. Resolves true if it did.
   *
   * @example
   * // Every instance may run this at start-up: only the first one sets the count.
   * await client.leasedSemaphore('gpus').trySetPermits(2);
   */
  trySetPermits(permits: number): Promise<boolean>;
  /**
   * Adds `permits` to the count (negative takes them away; the count may go below 0). Resolves with the new count.
   *
   * @example
   * const count = await client.semaphore('renders').addPermits(2); // two more renders at a time
   */
  addPermits(permits: number): Promise<number>;
  /**
   * The permits nobody holds right now (0 when the semaphore has no count).
   *
   * @example
   * const free = await client.semaphore('renders').availablePermits();
   */
  availablePermits(): Promise<number>;
  /**
   * Deletes the count and rxlock's bookkeeping; holders' later releases change nothing. Resolves true if there was a count.
   *
   * @example
   * await client.semaphore('renders').delete();
   */
  delete(): Promise<boolean>;
}
