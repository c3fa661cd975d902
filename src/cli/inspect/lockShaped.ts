import type { Connection } from '../connection/Connection.js';
import { readScript, runReadScript } from './ReadScript.js';

/**
 * For each key, 1 when it could be the main key of a lock-family object: a hash, or a string Redis stores
 * as an integer (OBJECT ENCODING `int`, as every semaphore or latch count is). Cheap, so that `ls '*'` on a
 * big keyspace reads the full layout only of the keys that may matter.
 */
export const LOCK_SHAPED = readScript(`
local shaped = {}
for i, key in ipairs(KEYS) do
  local kind = redis.call('type', key)['ok']
  shaped[i] = 0
  if kind == 'hash' or (kind == 'string' and redis.call('object', 'encoding', key) == 'int') then shaped[i] = 1 end
end
return shaped
`);

/** Keys per script call on a single server (about a millisecond of Redis time); on a cluster one, as the keys of one call must share a slot. */
const BATCH = 1_000;

/** Which of `keys` are lock-shaped, in order. */
export async function lockShaped(connection: Connection, keys: readonly string[]): Promise<boolean[]> {
  const batch = connection.redis.isCluster ? 1 : BATCH;
  const calls: Promise<unknown>[] = [];
  for (let start = 0; start < keys.length; start += batch) calls.push(runReadScript(connection.redis, LOCK_SHAPED, keys.slice(start, start + batch), []));
  return (await Promise.all(calls)).flatMap((reply) => (reply as unknown[]).map((flag) => Number(flag) === 1));
}
