/** The global options that say where Redis is and how to log in. */
export interface ConnectionFlags {
  /**
   * A Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS).
   * @default the REDIS_URL environment variable, else redis://127.0.0.1:6379
   */
  url?: string | undefined;
  /** Seed nodes of a Redis Cluster, `host:port,host:port`; overrides `url`. @default none */
  cluster?: string | undefined;
  /** ACL user name. @default the URL's, else none */
  user?: string | undefined;
  /** Password. @default the URL's, else the REDIS_PASSWORD environment variable */
  password?: string | undefined;
  /** Connect with TLS. @default false (true for rediss://) */
  tls?: boolean | undefined;
  /** A PEM file of CA certificates to trust for TLS (implies `tls`). @default Node's trusted CAs */
  tlsCa?: string | undefined;
  /** How long connecting may take before the command gives up, in ms. @default 5000 */
  connectTimeout?: number | undefined;
}

export const DEFAULT_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
