import { HttpException, HttpStatus } from '@nestjs/common';
import { ClientClosedError, LockBackendError, LockLostError, LockTimeoutError } from '../index.js';

/** The JSON body of the HTTP errors `LockInterceptor` answers with. */
export interface LockErrorBody {
  /** The HTTP status: 409 or 503. */
  readonly statusCode: number;
  /** The status in words: `Conflict` or `Service Unavailable`. */
  readonly error: string;
  /** `LOCK_TIMEOUT` (409), `LOCK_LOST`, `LOCK_UNAVAILABLE` (503). */
  readonly code: 'LOCK_TIMEOUT' | 'LOCK_LOST' | 'LOCK_UNAVAILABLE';
  /** What happened, for the caller; it names no lock. */
  readonly message: string;
}

/**
 * The HTTP exception for one of rxlock's errors, or `undefined` for any other error:
 * - `LockTimeoutError` → 409 Conflict: another request holds the lock; the client may retry later;
 * - `LockLostError` → 503 Service Unavailable: the lock was lost while the request ran, so its work was
 *   stopped and may be partly done;
 * - `LockBackendError`, `ClientClosedError` → 503: Redis is unreachable, or the service is shutting down.
 * The body names no lock (names are often made of request data). Use it in your own exception filter.
 */
export function httpExceptionFor(error: unknown): HttpException | undefined {
  if (error instanceof LockTimeoutError) {
    return exception(HttpStatus.CONFLICT, 'Conflict', 'LOCK_TIMEOUT', 'Another request holds the lock this request needs; try again later.', error);
  }
  if (error instanceof LockLostError) {
    const message =
      error.reason === 'closed'
        ? 'The service is shutting down; the request was stopped and may be partly done.'
        : 'The lock this request held was lost before it finished; the request was stopped and may be partly done.';
    return exception(HttpStatus.SERVICE_UNAVAILABLE, 'Service Unavailable', 'LOCK_LOST', message, error);
  }
  if (error instanceof ClientClosedError || error instanceof LockBackendError) {
    return exception(HttpStatus.SERVICE_UNAVAILABLE, 'Service Unavailable', 'LOCK_UNAVAILABLE', 'The lock service is unavailable; try again later.', error);
  }
  return undefined;
}

function exception(statusCode: number, title: string, code: LockErrorBody['code'], message: string, cause: Error): HttpException {
  const body: LockErrorBody = { statusCode, error: title, code, message };
  return new HttpException(body, statusCode, { cause });
}
