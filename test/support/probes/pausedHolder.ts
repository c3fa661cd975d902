// A holder that runs `withLock` (or a handle's work) and checks `lease.signal` before each step; the test stops
// it (SIGSTOP) past its lease and resumes it. It prints JSON lines: `held`, each `step` with its wall time, and
// the `outcome` of withLock. Run as `node --import tsx pausedHolder.ts <redis port> <watchdogTimeoutMs> <name>`.
import { Redis } from 'ioredis';
import { createLockClient, LockLostError } from '../../../src/index.js';

const [port = '', watchdog = '', name = 'paused'] = process.argv.slice(2);
const redis = new Redis({ port: Number(port), host: '127.0.0.1' });
const client = createLockClient({ redis, watchdogTimeoutMs: Number(watchdog), clientId: 'paused' });
const print = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

async function main(): Promise<void> {
  const outcome = await client
    .withLock(
      name,
      async (lease) => {
        print({ type: 'held', token: lease.token });
        for (let step = 0; step < 200; step++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          if (lease.signal.aborted) return `stopped at step ${String(step)}`;
          print({ type: 'step', step, at: Date.now(), held: lease.held });
        }
        return 'finished';
      },
      { fencing: true },
    )
    .then(
      (value) => ({ settled: 'resolved', value }),
      (error: unknown) => ({
        settled: 'rejected',
        error: error instanceof Error ? error.name : String(error),
        result: error instanceof LockLostError ? error.result : undefined,
      }),
    );
  print({ type: 'outcome', at: Date.now(), ...outcome });
  await client.close();
  await redis.quit();
}

void main();
