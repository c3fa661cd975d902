import type { RedisDriver, WaitCommand } from './driver/RedisDriver.js';

/**
 * How a script's writes are waited for when the client asks for replica acknowledgements, as Redisson's
 * `checkLockSyncedSlaves` decides it: `WAITAOF 1 <replicas> <timeout>` (the master and the replicas fsynced
 * their AOF) where the server has AOF on and knows WAITAOF (Redis 7.2+, Valkey), `WAIT` otherwise (Redis 7.0
 * and older, or AOF off).
 */
export type WaitKind = 'wait' | 'waitaof';

/** Whether the server runs with AOF on and has WAITAOF, from `INFO server` and `INFO persistence`. */
export async function waitKindOf(driver: RedisDriver): Promise<WaitKind> {
  const [server, persistence] = await Promise.all([driver.info('server'), driver.info('persistence')]);
  const aof = /^aof_enabled:1\b/m.test(persistence);
  return aof && hasWaitaof(server) ? 'waitaof' : 'wait';
}

/** WAITAOF arrived in Redis 7.2; Valkey (forked from 7.2.4) reports `redis_version:7.2.4` and has it. */
function hasWaitaof(serverInfo: string): boolean {
  if (/^valkey_version:/m.test(serverInfo)) return true;
  const [, major = '0', minor = '0'] = /^redis_version:(\d+)\.(\d+)\./m.exec(serverInfo) ?? [];
  return Number(major) > 7 || (Number(major) === 7 && Number(minor) >= 2);
}

/** The command to send behind a script. */
export function waitCommand(kind: WaitKind, replicas: number, timeoutMs: number): WaitCommand {
  return kind === 'waitaof' ? { command: 'waitaof', local: 1, replicas, timeoutMs } : { command: 'wait', replicas, timeoutMs };
}

/** How many replicas acknowledged, from WAIT's integer or WAITAOF's `[local, replicas]`. */
export function acknowledgedReplicas(kind: WaitKind, reply: unknown): number {
  if (kind === 'wait') return Number(reply);
  return Array.isArray(reply) ? Number(reply[1]) : 0;
}

/** WAITAOF refused because the server's AOF was turned off since it was probed: probe again and use WAIT. */
export const AOF_OFF = /appendonly is disabled|ERR WAITAOF cannot be used/i;
