/** ioredis' messages for a command that could not be sent because the connection is down. */
const DISCONNECTED =
  /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Cluster isn't ready|None of startup nodes is available/i;

/** A refresh failure in words a person can act on: a lost connection says so; anything else as Redis said it. */
export function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return DISCONNECTED.test(message) ? `connection lost (${message})` : message;
}
