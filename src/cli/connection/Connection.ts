import type { Cluster, Redis } from 'ioredis';

/** An open connection to one Redis server or a cluster. */
export interface Connection {
  readonly redis: Redis | Cluster;
  /** Where it is connected, for messages: host:port (seed list for a cluster), never the password. */
  readonly address: string;
  /** The servers that together hold every key: the server itself, or each cluster master. */
  masters(): Redis[];
  /** Every server a client may have subscribed on (all cluster nodes). */
  nodes(): Redis[];
  close(): Promise<void>;
}
