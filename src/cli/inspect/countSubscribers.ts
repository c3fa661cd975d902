import type { Connection } from '../connection/Connection.js';

const CHUNK = 500;

/**
 * How many client connections subscribe to each channel, classic and sharded pub/sub together, summed over
 * every node (a cluster node only counts its own subscribers). Read-only: PUBSUB NUMSUB / SHARDNUMSUB.
 */
export async function countSubscribers(connection: Connection, channels: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const unique = [...new Set(channels)];
  const add = (reply: unknown): void => {
    const flat = reply as unknown[];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const channel = String(flat[i]);
      counts.set(channel, (counts.get(channel) ?? 0) + Number(flat[i + 1]));
    }
  };
  for (let start = 0; start < unique.length; start += CHUNK) {
    const chunk = unique.slice(start, start + CHUNK);
    await Promise.all(
      connection.nodes().map(async (node) => {
        add(await node.call('pubsub', 'numsub', ...chunk));
        // SHARDNUMSUB exists from Redis 7 on; older servers have no sharded subscribers to count.
        add(await node.call('pubsub', 'shardnumsub', ...chunk).catch(() => []));
      }),
    );
  }
  return counts;
}
