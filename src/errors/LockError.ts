/** Base class of every error rxlock raises itself. `lockName` is the name the caller used. */
export class LockError extends Error {
  /** The lock's name as the caller gave it (without the client's `keyPrefix`). */
  readonly lockName: string;

  /** `options.cause`: the error behind this one, if any. */
  constructor(lockName: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.lockName = lockName;
  }

  /** The subclass's name (`LockTimeoutError`, `LockLostError`, ...), as `error.name` and stack traces show it. */
  override get name(): string {
    return this.constructor.name;
  }
}
