import { afterAll, beforeAll } from 'vitest';
import { startRedis, type RedisServer } from './redisServer.js';

/**
 * Registers the hooks of a `describe` (or a file) with a redis-server of its own: started before its first
 * test, stopped after its last. Call it before the suite's other hooks, so that theirs can use the server in
 * `beforeAll` and are done with it before it stops. The server it returns can be used from those hooks and
 * from tests; `args` are extra command-line settings.
 */
export function redisServerForSuite(args: readonly string[] = []): RedisServer {
  let started: RedisServer | undefined;
  beforeAll(async () => {
    started = await startRedis(args);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const current = (): RedisServer => {
    if (started === undefined) throw new Error("the suite's redis-server starts in beforeAll: use it in a hook or a test");
    return started;
  };
  return {
    get port() {
      return current().port;
    },
    get url() {
      return current().url;
    },
    client: (options) => current().client(options),
    nodeRedis: (options) => current().nodeRedis(options),
    nodeRedis4: () => current().nodeRedis4(),
    nodeRedis6: () => current().nodeRedis6(),
    restart: () => current().restart(),
    signal: (signal) => current().signal(signal),
    stop: () => current().stop(),
  };
}
