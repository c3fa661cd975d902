import { classifyReplyError } from '../classifyReplyError.js';
import { StoreError } from '../StoreError.js';

/** Connection-level failures ioredis raises, by message. Each may have run the command or not. */
const UNAVAILABLE = [
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /ECONNREFUSED/,
  /ECONNRESET/,
  /EPIPE/,
  /ETIMEDOUT/,
  /ENOTFOUND/,
  /MaxRetriesPerRequest/i,
  /Reached the max retries per request limit/i,
  /Failed to refresh slots cache/i,
  /None of startup nodes is available/i,
  /Cluster isn't ready/i,
  /ClusterAllFailed/i,
  // A Cluster gave up following MOVED/ASK/TRYAGAIN/CLUSTERDOWN while a slot moved or a master failed over.
  /Too many Cluster redirections/i,
  /No sharded subscriber for slot/i,
  // The connection closed after an earlier command of the same pipeline was answered: the script ran, its WAIT did not.
  /Command aborted due to connection close/i,
];

/** Cluster redirections ioredis did not follow (inside a pipeline): the node did not run the command. */
const REDIRECTED = /^(MOVED|ASK) /;

/** Maps what ioredis rejected with to a `StoreError`. */
export function classifyRedisError(error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (REDIRECTED.test(message)) return new StoreError('unavailable', message, false, { cause: error });
  if (/Command timed out/i.test(message)) return new StoreError('timeout', message, true, { cause: error });
  if (UNAVAILABLE.some((pattern) => pattern.test(message))) {
    // "Stream isn't writeable" means ioredis never sent it; anything else may have reached the server.
    return new StoreError('unavailable', message, !/Stream isn't writeable/i.test(message), { cause: error });
  }
  return classifyReplyError(message, error);
}
