import type { Redis } from 'ioredis';
import type * as FairAcquire from '../../src/primitives/fairLock/acquireScript.js';
import type * as FairLeave from '../../src/primitives/fairLock/leaveScript.js';
import type * as FairRelease from '../../src/primitives/fairLock/releaseScript.js';
import type * as LockAcquire from '../../src/primitives/lock/acquireScript.js';
import type * as LockRelease from '../../src/primitives/lock/releaseScript.js';
import type { Script } from '../../src/store/Script.js';
import { dist } from '../rxlock.js';

const { fairLockAcquireScript } = (await import(`${dist}/primitives/fairLock/acquireScript.js`)) as typeof FairAcquire;
const { fairLockLeaveScript } = (await import(`${dist}/primitives/fairLock/leaveScript.js`)) as typeof FairLeave;
const { fairLockReleaseScript } = (await import(`${dist}/primitives/fairLock/releaseScript.js`)) as typeof FairRelease;
const { lockAcquireScript } = (await import(`${dist}/primitives/lock/acquireScript.js`)) as typeof LockAcquire;
const { lockReleaseScript, lockLeaveScript } = (await import(`${dist}/primitives/lock/releaseScript.js`)) as typeof LockRelease;

const SCRIPTS: readonly Script<unknown>[] = [
  lockAcquireScript,
  lockReleaseScript,
  lockLeaveScript,
  fairLockAcquireScript,
  fairLockReleaseScript,
  fairLockLeaveScript,
];
const NAMES = new Map(SCRIPTS.map((script) => [script.sha1, script.name]));

const THRESHOLD_US = 3;

type SlowlogEntry = [id: number, at: number, micros: number, args: string[]];

/**
 * How long Redis spent executing each of the lock scripts' calls, from its SLOWLOG: execution only, neither
 * the wake-up before it nor the reply's write. It logs every command that takes 3 µs or more: every script
 * call, but hardly any of the commands a script calls (Redis logs those too, and logging them would count in
 * their script's time, more for a script that makes more calls). It turns the logging on and empties the log;
 * the function it returns reads the log (one line per script) and restores the server's settings.
 */
export async function recordScriptTimes(admin: Redis): Promise<() => Promise<string[]>> {
  const saved = (await admin.config('GET', 'slowlog-*')) as string[];
  await admin.config('SET', 'slowlog-log-slower-than', String(THRESHOLD_US));
  await admin.config('SET', 'slowlog-max-len', '1000000');
  await admin.slowlog('RESET');
  return async () => {
    const entries = (await admin.slowlog('GET', -1)) as SlowlogEntry[];
    for (let i = 0; i < saved.length; i += 2) await admin.config('SET', saved[i]!, saved[i + 1]!);
    await admin.slowlog('RESET');
    const byScript = new Map<string, number[]>();
    for (const [, , micros, args] of entries) {
      const name = String(args[0]).toLowerCase() === 'evalsha' ? NAMES.get(String(args[1])) : undefined;
      if (name === undefined) continue;
      let times = byScript.get(name);
      if (times === undefined) byScript.set(name, (times = []));
      times.push(micros);
    }
    return [...byScript].sort(([a], [b]) => a.localeCompare(b)).map(([name, times]) => describe(name, times));
  };
}

function describe(name: string, times: number[]): string {
  times.sort((a, b) => a - b);
  const at = (share: number): string => String(times[Math.floor(share * (times.length - 1))] ?? '–');
  return `${name.padEnd(18)} ${String(times.length).padStart(7)} calls: p10 ${at(0.1)} µs, p50 ${at(0.5)} µs, p90 ${at(0.9)} µs`;
}
