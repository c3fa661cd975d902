/** Base class of every error rxlock raises itself. `lockName` is the name the caller used. */
export class LockError extends Error {
  readonly lockName: string;

  constructor(lockName: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.lockName = lockName;
  }

  override get name(): string {
    return this.constructor.name;
  }
}
