/**
 * A failure as the store reports it, before the engine knows which lock it concerns.
 * - `wrongtype`: a key holds another type; the message is `<key> <type>` (see `wrongTypeOf`), or empty when
 *   Redis did not say which key.
 * - `upgrade`: a read-write lock owner asked to upgrade.
 * - `reentry`: the owner of a non-reentrant lock asked for it again.
 * - `oom`, `busy`, `unavailable`, `closed`, `timeout`, `no-replicas`, `other`: see `LockBackendError`.
 */
export type StoreErrorCode = 'wrongtype' | 'upgrade' | 'reentry' | 'oom' | 'busy' | 'unavailable' | 'closed' | 'timeout' | 'no-replicas' | 'other';

/**
 * What a store reports when a command fails: a code the engine acts on (retry, give up, name the key) and
 * whether the command may have run. A store of your own raises these; `classifyReplyError` reads an error reply.
 */
export class StoreError extends Error {
  /** What went wrong, in terms the engine acts on. */
  readonly code: StoreErrorCode;
  /** Whether the command may have run on the server even though no reply says so. */
  readonly outcomeUnknown: boolean;

  /**
   * Describes one failed command.
   * @param code What went wrong.
   * @param message The store's own words, shown to the user inside a `LockBackendError`.
   * @param outcomeUnknown Whether the command may have run on the server even though no reply says so.
   * @param options `cause`: the client's original error.
   */
  constructor(code: StoreErrorCode, message: string, outcomeUnknown: boolean, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.outcomeUnknown = outcomeUnknown;
  }

  /** `'StoreError'`, so logs and `instanceof`-free checks can tell it apart. */
  override get name(): string {
    return 'StoreError';
  }
}
