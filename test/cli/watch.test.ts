import { PassThrough } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/runCli.js';
import { createLockClient } from '../../src/index.js';
import { eventually, sleep } from '../support/leaks.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock, spawnRxlock } from './cliProcess.js';
import { prepareEveryPrimitive, type Prepared } from './everyPrimitive.js';

/** How many connections the server has (CLIENT LIST lines). */
async function connections(admin: Redis): Promise<number> {
  return String(await admin.call('CLIENT', 'LIST'))
    .trim()
    .split('\n').length;
}

/** The row of `name` in a watch frame, split into its columns. */
function row(frame: string, name: string): string[] {
  const line = frame.split('\n').find((text) => text.slice(2).startsWith(`${name} `)) ?? '';
  return line.trim().split(/\s{2,}/);
}

describe('rxlock watch', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();
  let prepared: Prepared;
  let url: string;

  beforeAll(async () => {
    url = server.url;
    prepared = await prepareEveryPrimitive(server);
  });
  afterAll(async () => {
    await prepared.close();
  });

  it('--once prints one frame: totals, then kind, holders, TTL, waiters, longest wait and handoffs per object', async () => {
    const result = await rxlock(['watch', '--once', '--interval', '200', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const frame = result.stdout;
    const lines = frame.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^rxlock watch "\\*" on redis://127\\.0\\.0\\.1:${server.port} · every 200ms · \\d\\d:\\d\\d:\\d\\d$`));
    // held: orders:1, orders:2, catalog, prices, pool, slots, payments, refunds; waiting: 1 (orders:1) + 2 + 2 (fair locks) + 1 (batch).
    expect(lines[1]).toBe('11 objects · 8 held · 6 waiting · 0.0 handoffs/s');
    expect(lines[3]?.trim().split(/\s{2,}/)).toEqual(['NAME', 'KIND', 'HOLDERS', 'TTL', 'WAITERS', 'LONGEST WAIT', 'HANDOFFS/S']);
    expect(row(frame, 'orders:1')).toEqual([
      'orders:1',
      'lock',
      'app-1:worker-1 ×1',
      expect.stringMatching(/^\d+\.\ds$/),
      '1 queued, 1 client',
      expect.stringMatching(/^\d+(ms|\.\ds) app-2:worker-2$/),
      '0.0',
    ]);
    expect(row(frame, 'catalog')).toEqual(['catalog', 'readWriteLock', 'R app-1:reader-1 ×1 +1', expect.stringMatching(/s$/), '–', '–', '0.0']);
    expect(row(frame, 'payments')).toEqual([
      'payments',
      'fairLock',
      'app-1:payer-1 ×1',
      expect.stringMatching(/s$/),
      '2 queued',
      expect.stringMatching(/^≥\d+ms app-2:payer-2$/),
      '0.0',
    ]);
    expect(row(frame, 'refunds')).toEqual([
      'refunds',
      'fairLock',
      expect.stringMatching(/:1 ×1$/),
      expect.stringMatching(/s$/),
      '2 queued',
      expect.stringMatching(/^≥\d+ms c0ffee00…:2$/),
      '0.0',
    ]);
    expect(row(frame, 'batch')).toEqual(['batch', 'latch', '–', '∞', '1 client', expect.stringMatching(/^≥\d+ms$/), '–']);
    expect(row(frame, 'reports')).toEqual(['reports', 'fencingCounter', '–', '–', '–', '–', '–']);
    expect(frame).not.toContain('Ctrl-C');
  });

  it('--once without --interval prints its first refresh, without rates (they need two refreshes)', async () => {
    const result = await rxlock(['watch', 'orders:*', '--once', '--url', url]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/ · one refresh · \d\d:\d\d:\d\d$/);
    expect(lines[1]).toBe('2 objects · 2 held · 1 waiting · – handoffs/s');
    expect(row(result.stdout, 'orders:1')).toEqual([
      'orders:1',
      'lock',
      'app-1:worker-1 ×1',
      expect.stringMatching(/s$/),
      '1 queued, 1 client',
      expect.any(String),
      '–',
    ]);
    // orders:2 is held and nobody waits: a lock, or a fair lock with an empty queue.
    expect(row(result.stdout, 'orders:2')).toEqual(['orders:2', 'lock*', 'app-1:job ×2', expect.stringMatching(/s$/), '–', '–', '–']);
    expect(lines.at(-2)).toMatch(/^\* a lock, or a fair lock with nobody queued/);
  });

  it('counts holders that were not there at the previous refresh as handoffs', async () => {
    const client = createLockClient({ redis: server.client(), clientId: 'rotor' });
    const holds: Subscription[] = [];
    let n = 0;
    // Readers overlap, so the lock is never free, yet its holders keep changing.
    const rotate = setInterval(() => {
      holds.push(client.readLock$('rotating', { owner: `r${++n}` }).subscribe({ error: () => undefined }));
      if (holds.length > 2) holds.shift()?.unsubscribe();
    }, 100);
    try {
      await eventually(async () => (await server.client().exists('rotating')) === 1);
      const result = await rxlock(['watch', 'rotating', '--once', '--interval', '1000', '--url', url]);
      expect(result.code).toBe(0);
      const [name, kind, , , , , rate] = row(result.stdout, 'rotating');
      expect([name, kind]).toEqual(['rotating', 'readWriteLock']);
      expect(Number(rate)).toBeGreaterThan(0);
    } finally {
      clearInterval(rotate);
      for (const hold of holds) hold.unsubscribe();
      await client.close();
    }
  });

  it('refreshes in place on a terminal and ends cleanly when interrupted, closing its connection', async () => {
    const admin = server.client();
    const connectionsBefore = await connections(admin);
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 160, rows: 40 });
    let written = '';
    terminal.on('data', (chunk: Buffer) => (written += chunk.toString()));
    let interrupt: (() => void) | undefined;
    const io = {
      stdout: terminal as unknown as NodeJS.WriteStream,
      stderr: new PassThrough() as unknown as NodeJS.WriteStream,
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      onInterrupt: (listener: () => void) => {
        interrupt = listener;
        return () => (interrupt = undefined);
      },
    };
    const exit = runCli(['node', 'rxlock', 'watch', 'orders:*', '--interval', '100', '--url', url], io);
    expect(await eventually(() => written.split('rxlock watch "orders:*"').length > 3)).toBe(true);
    // eslint-disable-next-line no-control-regex
    const redraws = written.match(/\u001b\[2K\u001b\[1A/g) ?? [];
    expect(redraws.length).toBeGreaterThan(0);
    expect(written).toContain('Ctrl-C to quit');
    expect(interrupt).toBeTypeOf('function');
    interrupt?.();
    expect(await exit).toBe(0);
    expect(interrupt).toBeUndefined();
    const after = written.length;
    await sleep(300);
    expect(written.length).toBe(after);
    expect(await eventually(async () => (await connections(admin)) === connectionsBefore)).toBe(true);
  });

  it('without a terminal appends frames, and ends with exit code 0 on SIGINT and on SIGTERM', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const child = spawnRxlock(['watch', 'orders:*', '--interval', '100', '--url', url]);
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      expect(await eventually(() => stdout.split('rxlock watch').length > 2, 15_000)).toBe(true);
      child.kill(signal);
      expect(await exited).toBe(0);
      // eslint-disable-next-line no-control-regex
      expect(stdout).not.toMatch(/\u001b/);
      expect(stdout).toContain('orders:2');
    }
  });
});
