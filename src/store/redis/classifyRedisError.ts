import { classifyReplyError } from '../classifyReplyError.js';
import { StoreError } from '../StoreError.js';
import { nodeRedisGaveUp } from './driver/nodeRedisErrors.js';

/** Connection-level failures ioredis and node-redis raise, by message. Each may have run the command or not. */
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
  // node-redis: the socket dropped with the command written, or the client was destroyed with it in flight.
  /Socket closed unexpectedly/i,
  /Disconnects client/i,
  /Connection timeout/i,
  /^Socket timeout/i,
  /All the root nodes are unavailable/i,
  /Cannot find node/i,
];

/**
 * node-redis 5's cluster routes a command while it rebuilds its slot map (after a MOVED or a failed node) with
 * the map half empty, and fails with a TypeError about a shard or node it could not find: a transient outage.
 */
const CLUSTER_MAP_REBUILT = /^Cannot read properties of undefined \(reading '(master|connectPromise|client|pubSub)'\)/;

/** node-redis refused the command before writing it: the server never saw it. */
const NOT_SENT = [/^The client is offline/i, /^The queue is full/i];

/** Cluster redirections ioredis did not follow (inside a pipeline): the node did not run the command. */
const REDIRECTED = /^(MOVED|ASK) /;

/** Maps what ioredis or node-redis rejected with to a `StoreError`. */
export function classifyRedisError(error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (REDIRECTED.test(message)) return new StoreError('unavailable', message, false, { cause: error });
  const gaveUp = nodeRedisGaveUp(error);
  if (gaveUp === 'unsent')
    return new StoreError('unavailable', `node-redis gave up on the command before sending it${message === '' ? '' : `: ${message}`}`, false, { cause: error });
  if (gaveUp === 'unanswered') return new StoreError('timeout', message, true, { cause: error });
  if (/Command timed out/i.test(message)) return new StoreError('timeout', message, true, { cause: error });
  if (NOT_SENT.some((pattern) => pattern.test(message))) return new StoreError('unavailable', message, false, { cause: error });
  // Possibly after a first send answered MOVED: counted as maybe run, so that an acquire is compensated.
  if (error instanceof TypeError && CLUSTER_MAP_REBUILT.test(message)) return new StoreError('unavailable', message, true, { cause: error });
  // A client closed while the command waited in its queue (node-redis's own message; the store names the client's state first).
  if (/^The client is closed/i.test(message)) return new StoreError('closed', message, false, { cause: error });
  if (UNAVAILABLE.some((pattern) => pattern.test(message))) {
    // "Stream isn't writeable" means ioredis never sent it; anything else may have reached the server.
    return new StoreError('unavailable', message, !/Stream isn't writeable/i.test(message), { cause: error });
  }
  return classifyReplyError(message, error);
}
