import { LockError } from './LockError.js';

/**
 * The lock could not be had within `waitMs`. Nothing is held when this is raised. When the attempts failed
 * for a backend reason (Redis unreachable or too slow) rather than because somebody held the lock, `cause`
 * is that `LockBackendError` and the message says so.
 */
export class LockTimeoutError extends LockError {
  /** The `waitMs` the acquisition was given, in milliseconds. */
  readonly waitMs: number;

  /** rxlock raises it; tests of code that handles it may build one too. `options.cause`: the backend error behind the failed attempts. */
  constructor(lockName: string, waitMs: number, options?: ErrorOptions) {
    super(
      lockName,
      `rxlock: could not acquire "${lockName}" within ${String(waitMs)} ms${reasonOf(options?.cause)}`,
      options?.cause === undefined ? undefined : options,
    );
    this.waitMs = waitMs;
  }
}

function reasonOf(cause: unknown): string {
  if (cause === undefined) return '';
  return `: its attempts failed (${cause instanceof Error ? cause.message : 'see cause'})`;
}
