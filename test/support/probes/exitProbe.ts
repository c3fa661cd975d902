// A program that uses rxlock and then ends without calling close(): it must exit by itself. Run by
// test/processExit.test.ts as `node --import tsx exitProbe.ts <redis port> <scenario>`.
import { Redis } from 'ioredis';
import { firstValueFrom } from 'rxjs';
import { createLockClient } from '../../../src/index.js';

const [port = '', scenario = ''] = process.argv.slice(2);
const redis = new Redis({ port: Number(port), host: '127.0.0.1' });
const otherRedis = new Redis({ port: Number(port), host: '127.0.0.1' });
const client = createLockClient({ redis });

async function main(): Promise<void> {
  if (scenario === 'uncontended') {
    await client.withLock('exit-probe', () => 'done');
  } else if (scenario === 'contended') {
    // A second holder makes the first wait: the client subscribes, and a hand-off follows.
    const other = createLockClient({ redis: otherRedis });
    const held = await other.acquire('exit-probe');
    const waiting = client.withLock('exit-probe', () => 'done');
    setTimeout(() => void held.release(), 50);
    await waiting;
    await other.close();
  } else if (scenario === 'timeout') {
    const held = await client.acquire('exit-probe');
    const other = createLockClient({ redis: otherRedis });
    await firstValueFrom(other.lock$('exit-probe', { waitMs: 100 })).catch(() => undefined);
    await held.release();
    await other.close();
  }
  // The program's own Redis clients are done with; rxlock's client is never closed.
  await Promise.all([redis.quit(), otherRedis.quit()]);
  process.stdout.write(`done ${JSON.stringify(process.getActiveResourcesInfo())}\n`);
}

void main();
