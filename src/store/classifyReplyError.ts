import { StoreError } from './StoreError.js';
import { wrongTypeDetail } from './wrongType.js';

/** Maps an error reply's text to a store error code. Shared by both stores so they classify alike. */
export function classifyReplyError(message: string, cause: unknown): StoreError {
  const code = message.split(' ', 1)[0] ?? '';
  switch (code) {
    case 'RXLOCK_WRONGTYPE':
      return new StoreError('wrongtype', wrongTypeDetail(message), false, { cause });
    case 'WRONGTYPE':
      // Redis's own reply does not name the key: the detail is empty, and the error names the lock.
      return new StoreError('wrongtype', '', false, { cause });
    case 'RXLOCK_UPGRADE':
      return new StoreError('upgrade', message, false, { cause });
    // rxlock's, and what Redisson's non-reentrant lock answers.
    case 'RXLOCK_REENTRY':
    case 'NON_REENTRANT_REACQUIRE':
      return new StoreError('reentry', message, false, { cause });
    case 'OOM':
      return new StoreError('oom', message, false, { cause });
    case 'BUSY':
      return new StoreError('busy', message, false, { cause });
    case 'LOADING':
    case 'TRYAGAIN':
    case 'CLUSTERDOWN':
    case 'READONLY':
    case 'MASTERDOWN':
      return new StoreError('unavailable', message, false, { cause });
    default:
      return new StoreError('other', message, false, { cause });
  }
}
