import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { firstValueFrom, filter } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLockClient, LockBackendError, type LockClient } from '../src/index.js';
import { eventually, sleep } from './support/leaks.js';
import { RedissonPeer } from './support/redisson.js';
import { sharedRedis } from './support/sharedRedis.js';

/** The critical sections of three kinds of holder on one name, each recorded as [start, end] on this process's clock. */
type Section = readonly [start: number, end: number];

function overlaps(sections: readonly Section[]): number {
  const sorted = [...sections].sort((a, b) => a[0] - b[0]);
  let count = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i]![0] < sorted[i - 1]![1]) count++;
  return count;
}

describe('an ioredis client, a node-redis client and a Redisson peer on the same name', () => {
  const scene = sharedRedis();

  it('exclude one another: no two of them hold it at once, and each is woken by the others’ unlock messages', async () => {
    const viaIoredis = scene.client({ clientId: 'io' });
    const nodeRedis = scene.server.nodeRedis();
    const viaNodeRedis = createLockClient({ redis: nodeRedis, clientId: 'nr' });
    const peer = new RedissonPeer(scene.server.client());
    const sections: Section[] = [];
    const work = async (client: LockClient, rounds: number): Promise<void> => {
      for (let i = 0; i < rounds; i++) {
        await client.withLock('shared', async () => {
          const start = performance.now();
          await sleep(5);
          sections.push([start, performance.now()]);
        });
      }
    };
    /** Redisson's tryLock in a loop, as its RLock.lock() does when it is not woken. */
    const redisson = async (rounds: number): Promise<void> => {
      for (let i = 0; i < rounds; i++) {
        while ((await peer.tryLock('shared', 1)) !== null) await sleep(2);
        const start = performance.now();
        await sleep(5);
        sections.push([start, performance.now()]);
        expect(await peer.unlock('shared', 1)).toBe(1);
      }
    };
    await Promise.all([work(viaIoredis, 20), work(viaNodeRedis, 20), redisson(20)]);
    expect(sections).toHaveLength(60);
    expect(overlaps(sections)).toBe(0);

    // A node-redis waiter behind the Redisson holder is woken by Redisson's own unlock message, long before its 30 s TTL.
    expect(await peer.tryLock('shared', 2)).toBeNull();
    const queued = firstValueFrom(viaNodeRedis.events$.pipe(filter((event) => event.type === 'waiting')));
    const started = performance.now();
    const waited = viaNodeRedis.withLock('shared', () => performance.now() - started);
    await queued;
    await sleep(100);
    expect(await peer.unlock('shared', 2)).toBe(1);
    expect(await waited).toBeLessThan(2_000);
    await viaNodeRedis.close();
  });
});

describe('a Redis client that gave up reconnecting, and a closed one', () => {
  const scene = sharedRedis();

  it('ioredis: the error says the client gave up reconnecting (retryStrategy returned no delay), not that quit or disconnect was called', async () => {
    const redis = scene.server.client({ retryStrategy: () => null });
    const client = scene.client();
    const giving = createLockClient({ redis });
    expect(await giving.withLock('give-up', () => 'ran')).toBe('ran');
    await scene.server.client().client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    expect(await eventually(() => redis.status === 'end', 2_000)).toBe(true);
    const error = await giving.withLock('give-up', () => 'ran').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LockBackendError);
    expect((error as LockBackendError).code).toBe('closed');
    expect((error as Error).message).toMatch(/the ioredis client gave up reconnecting \(its retryStrategy returned no delay\)/);
    await giving.close();

    const quitting = scene.server.client();
    const closed = createLockClient({ redis: quitting });
    await quitting.quit();
    expect(await eventually(() => quitting.status === 'end', 2_000)).toBe(true);
    const afterQuit = await closed.withLock('give-up', () => 'ran').catch((caught: unknown) => caught);
    expect((afterQuit as Error).message).toMatch(/the ioredis client is closed \(quit or disconnect was called\)/);
    await closed.close();
    expect(await client.withLock('give-up', () => 'still works')).toBe('still works');
  });
});

/** Runs test/support/finishedProgram.ts with `library`; resolves with the line it reports once its work is done. */
function finishedProgram(library: 'ioredis' | 'node-redis', port: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support/finishedProgram.ts'), library, String(port), 'close'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      if (code !== 0) reject(new Error(`finishedProgram ${library} exited with ${code ?? signal}:\n${output}`));
      else resolve(JSON.parse(output.split('\n')[0] ?? '{}') as Record<string, number>);
    });
  });
}

describe('a program that closed its own Redis client but not its lock clients', () => {
  const scene = sharedRedis();

  for (const library of ['ioredis', 'node-redis'] as const) {
    it(`${library}: rxlock closes the pub/sub connection it opened as soon as the user's client is closed`, async () => {
      const report = await finishedProgram(library, scene.server.port);
      // The command connection and rxlock's pub/sub duplicate were open; after the user's own quit, neither is.
      expect(report.socketsBefore).toBe(2);
      expect(report.sockets).toBe(0);
      // The lock clients' own timers go with close() (the program then exits by itself, as the test sees).
      expect(report.timersAfterClose).toBe(0);
    });
  }
});
