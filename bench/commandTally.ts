import type { Redis } from 'ioredis';
import type { RedisClientType } from 'redis';

/**
 * Counts the commands that a group of ioredis connections sends, by name, while counting is on. Every
 * connection of a contender's workers is attached, and so is every connection they duplicate (rxlock's
 * pub/sub connection), so SUBSCRIBE and UNSUBSCRIBE are counted too.
 */
export class CommandTally {
  readonly #byName = new Map<string, number>();
  #counting = false;
  #total = 0;
  #listener: ((name: string) => void) | undefined;

  get total(): number {
    return this.#total;
  }

  count(name: string): number {
    return this.#byName.get(name) ?? 0;
  }

  /** Names and counts, most frequent first. */
  entries(): [string, number][] {
    return [...this.#byName].sort((a, b) => b[1] - a[1]);
  }

  start(): void {
    this.#counting = true;
  }

  stop(): void {
    this.#counting = false;
  }

  reset(): void {
    this.#byName.clear();
    this.#total = 0;
  }

  /** Called for every counted command (the many-held scenario finds renewal ticks with it). */
  onCommand(listener: ((name: string) => void) | undefined): void {
    this.#listener = listener;
  }

  /** Wraps `redis` so that every command it (or a connection it duplicates) sends is counted. */
  attach(redis: Redis): Redis {
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      if (this.#counting) {
        const name = command.name.toLowerCase();
        this.#byName.set(name, (this.#byName.get(name) ?? 0) + 1);
        this.#total++;
        this.#listener?.(name);
      }
      return send(command, stream);
    };
    const duplicate = redis.duplicate.bind(redis);
    redis.duplicate = (override) => this.attach(duplicate(override));
    return redis;
  }

  /**
   * The same for a node-redis client: its commands go through `sendCommand`, its SUBSCRIBE and UNSUBSCRIBE
   * (which node-redis queues itself) through `subscribe`/`unsubscribe`, counted one per channel as they go out.
   */
  attachNodeRedis(client: RedisClientType): RedisClientType {
    const count = (name: string, times = 1): void => {
      if (!this.#counting) return;
      for (let i = 0; i < times; i++) {
        this.#byName.set(name, (this.#byName.get(name) ?? 0) + 1);
        this.#total++;
        this.#listener?.(name);
      }
    };
    const send = client.sendCommand.bind(client);
    client.sendCommand = (args: string[], options?: object) => {
      count(String(args[0]).toLowerCase());
      return send(args, options);
    };
    for (const method of ['subscribe', 'unsubscribe'] as const) {
      const original = (client[method] as (...args: unknown[]) => Promise<unknown>).bind(client);
      Object.assign(client, {
        [method]: (channels: string | string[], ...rest: unknown[]) => {
          count(method, Array.isArray(channels) ? channels.length : 1);
          return original(channels, ...rest);
        },
      });
    }
    const duplicate = client.duplicate.bind(client);
    client.duplicate = ((overrides?: object) => this.attachNodeRedis(duplicate(overrides))) as typeof client.duplicate;
    return client;
  }
}
