/**
 * The `keyPrefix` an ioredis client adds to every key it sends (`Redis`, or a `Cluster`'s own or its
 * `redisOptions`'), or undefined. rxlock refuses such a client: ioredis prefixes the keys of a script but not
 * the channels rxlock subscribes to or names in arguments, so unlock messages would never reach the waiters.
 */
export function clientKeyPrefix(redis: object): string | undefined {
  const options = (redis as { options?: { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } } }).options;
  const prefix = options?.keyPrefix ?? options?.redisOptions?.keyPrefix;
  return typeof prefix === 'string' && prefix !== '' ? prefix : undefined;
}

/** The error for such a client, naming where it was passed (`option "redis"`, `instances[1]`). */
export function keyPrefixError(where: string, what: string, prefix: string): TypeError {
  return new TypeError(
    `rxlock: ${where}: ${what} has the ioredis option keyPrefix ${JSON.stringify(prefix)}, which rxlock cannot follow ` +
      '(ioredis prefixes keys, not pub/sub channels, so waiters would not hear unlocks); ' +
      `pass a client without keyPrefix and rxlock's own keyPrefix option instead`,
  );
}
