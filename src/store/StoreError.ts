/**
 * A failure as the store reports it, before the engine knows which lock it concerns.
 * - `wrongtype`: a key holds another type; the message is `<key> <type>` (see `wrongTypeOf`), or empty when
 *   Redis did not say which key.
 * - `upgrade`: a read-write lock owner asked to upgrade.
 * - `oom`, `busy`, `unavailable`, `closed`, `timeout`, `no-replicas`, `other`: see `LockBackendError`.
 */
export type StoreErrorCode = 'wrongtype' | 'upgrade' | 'oom' | 'busy' | 'unavailable' | 'closed' | 'timeout' | 'no-replicas' | 'other';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  /** Whether the command may have run on the server even though no reply says so. */
  readonly outcomeUnknown: boolean;

  constructor(code: StoreErrorCode, message: string, outcomeUnknown: boolean, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.outcomeUnknown = outcomeUnknown;
  }

  override get name(): string {
    return 'StoreError';
  }
}
