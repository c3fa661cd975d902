/** The names of `error`'s classes, its own first (node-redis's errors do not set `name`). */
function classNames(error: unknown): string[] {
  const names: string[] = [];
  for (
    let proto = error instanceof Error ? (Object.getPrototypeOf(error) as object | null) : null;
    proto !== null && proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** node-redis's error replies are `ErrorReply` (or its `SimpleError`/`BlobError`). */
export function isErrorReply(error: unknown): boolean {
  return classNames(error).includes('ErrorReply');
}

/**
 * Whether node-redis itself gave up on the command, and where it left it: `unsent` when it never wrote it (its
 * `commandOptions.timeout`, 5 s by default from node-redis 6, ran out while the command waited in its offline
 * queue; or an abort signal), `unanswered` when it stopped waiting for the reply of a command it wrote (its
 * `rejectInFlight` option), which may still run.
 */
export function nodeRedisGaveUp(error: unknown): 'unsent' | 'unanswered' | undefined {
  const names = classNames(error);
  // The socket went silent during a maintenance window and node-redis closed it: a dropped connection, whatever its class says.
  if (names.includes('SocketTimeoutDuringMaintenanceError')) return undefined;
  if (names.includes('TimeoutReadError') || names.includes('AbortReadError')) return 'unanswered';
  if (names.includes('TimeoutError') || names.includes('AbortError')) return 'unsent';
  return undefined;
}
