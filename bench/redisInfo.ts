/** A numeric field of an `INFO` reply (its `field:value` lines); 0 when the reply has no such field. */
export function infoNumber(info: string, field: string): number {
  return Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
}

/** Calls and µs of EVALSHA so far, from an `INFO commandstats` reply (Redis counts a script's own calls in its time). */
export function evalshaStats(commandstats: string): { calls: number; usec: number } {
  const match = /^cmdstat_evalsha:calls=(\d+),usec=(\d+)/m.exec(commandstats);
  return { calls: Number(match?.[1] ?? 0), usec: Number(match?.[2] ?? 0) };
}
