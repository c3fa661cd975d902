import type { Redis } from 'ioredis';

/** RLock's acquire (KEYS: name; ARGV: leaseMs, field): nil when acquired or re-entered, else the holder's PTTL. */
export const REDISSON_LOCK_LUA = `if redis.call('exists', KEYS[1]) == 0 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil
  end
  if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil
  end
  return redis.call('pttl', KEYS[1])`;

/**
 * RLock's unlock as Redisson 3.x sent it before the unlock latch of #4871 (KEYS: name, channel; ARGV: message,
 * leaseMs, field): nil when not held by this field, 0 still held, 1 unlocked (and `0` published).
 */
export const REDISSON_UNLOCK_LUA = `if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end
  local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
  if counter > 0 then redis.call('pexpire', KEYS[1], ARGV[2]); return 0 end
  redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1`;

/**
 * Plays a Redisson client (RLock, 3.x) by its documented steps against the same Redis, so the tests can show
 * that a Java service on Redisson and a Node service on rxlock exclude each other on one name. The scripts
 * follow Redisson's published logic: hash `name`, field `<uuid>:<threadId>` → hold count, PEXPIRE, and
 * `0` published on `redisson_lock__channel:{name}` at the final unlock.
 */
export class RedissonPeer {
  readonly #redis: Redis;
  readonly uuid: string;

  constructor(redis: Redis, uuid = 'b6f1f7ae-redisson-peer') {
    this.#redis = redis;
    this.uuid = uuid;
  }

  field(threadId: number): string {
    return `${this.uuid}:${threadId}`;
  }

  static channel(name: string): string {
    return `redisson_lock__channel:{${name}}`;
  }

  /** tryAcquire: null when acquired (or re-entered), else the holder's PTTL. */
  async tryLock(name: string, threadId: number, leaseMs = 30_000): Promise<number | null> {
    const reply = await this.#redis.eval(REDISSON_LOCK_LUA, 1, name, leaseMs, this.field(threadId));
    return reply === null ? null : Number(reply);
  }

  /** unlock: null when not held by this thread (Redisson throws IllegalMonitorStateException), 0 still held, 1 unlocked. */
  async unlock(name: string, threadId: number, leaseMs = 30_000): Promise<number | null> {
    const reply = await this.#redis.eval(REDISSON_UNLOCK_LUA, 2, name, RedissonPeer.channel(name), 0, leaseMs, this.field(threadId));
    return reply === null ? null : Number(reply);
  }

  /** The watchdog's renewal: 1 when renewed, 0 when this thread does not hold it. */
  async renew(name: string, threadId: number, leaseMs = 30_000): Promise<number> {
    return Number(
      await this.#redis.eval(
        `if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then redis.call('pexpire', KEYS[1], ARGV[1]); return 1 end return 0`,
        1,
        name,
        leaseMs,
        this.field(threadId),
      ),
    );
  }
}
