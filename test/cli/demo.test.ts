import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/runDemo.js';
import { isLiveTerminal } from '../../src/demo/terminal.js';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';

/** One event line of the plain log: `  0.244  ··  ██  w1 released, w2 acquired token 2 (waited 229 ms); works 61 ms`. */
const EVENT = /^\s*(\d+\.\d{3}) {2}((?:.{2} )*.{2}) {2}(.*)$/u;
const ACQUIRED = /^(?:(w\d+) (released|lost it), )?(w\d+) acquired token (\d+) \(waited \d+ ms\); works \d+ ms/;

interface Acquisition {
  readonly previous: string | undefined;
  readonly worker: string;
  readonly token: number;
  readonly lanes: string;
}

/** The acquisitions the plain log tells, in order. */
function acquisitions(stdout: string): Acquisition[] {
  return stdout.split('\n').flatMap((line) => {
    const event = EVENT.exec(line);
    const told = event === null ? null : ACQUIRED.exec(event[3] ?? '');
    if (event === null || told === null) return [];
    return [{ previous: told[1], worker: told[3] ?? '', token: Number(told[4]), lanes: event[2] ?? '' }];
  });
}

/** What every run of the demo must end with. */
function expectSummary(stdout: string): void {
  expect(stdout).toMatch(/\nDone after \d+\.\d s\.\n {2}acquisitions {5}\d+, \d+ of them handed over from another worker\n/);
  expect(stdout).toContain('\n  overlaps         0: never two holders at once\n');
  expect(stdout).toMatch(/\n {2}fencing tokens {3}strictly increasing, \d+ → \d+\n/);
  expect(stdout).toMatch(/\n {2}lost leases {6}\d+ detected \(w\d runs past its 250 ms lease every fourth hold, on purpose\)\n$/);
}

describe('rxlock demo', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();

  it('piped, prints a plain log: a legend, one line per acquisition with the end of the hold before it, and a summary', async () => {
    const result = await rxlock(['demo', '--duration', '1.5', '--workers', '2', '--lock', 'cli-demo', '--url', server.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rxlock demo: 2 workers contend for the lock "cli-demo"');
    expect(result.stdout).toContain('Lanes: ██ holds the lock   ·· waits for it   ✗ lost its lease (its work is stopped first)');
    // No redrawing: no escape sequences in a pipe.
    // eslint-disable-next-line no-control-regex
    expect(result.stdout).not.toMatch(/\u001b/);
    expectSummary(result.stdout);

    const told = acquisitions(result.stdout);
    // Both workers get the lock (the CLI's connections fail fast: no offline queue, as in test/failFastClient.test.ts).
    expect(new Set(told.map((acquisition) => acquisition.worker))).toEqual(new Set(['w1', 'w2']));
    // Each acquisition names the hold before it, which is the previous line's: hand-offs in the order they happened.
    expect(told[0]?.previous).toBeUndefined();
    for (let i = 1; i < told.length; i++) expect(told[i]?.previous).toBe(told[i - 1]?.worker);
    for (let i = 1; i < told.length; i++) expect(told[i]?.token).toBeGreaterThan(told[i - 1]?.token ?? Infinity);
    // The lanes never show two holders (██) at once, and show the new holder holding.
    for (const { lanes, worker } of told) {
      expect(lanes.split('██').length).toBe(2);
      const lane = (Number(worker.slice(1)) - 1) * 3;
      expect(lanes.slice(lane, lane + 2)).toBe('██');
    }
    // A worker may take the lock straight back when the other's request reaches Redis only after its own: that
    // acquisition was not handed over from another worker.
    const fromAnother = told.filter(({ previous, worker }) => previous !== undefined && previous !== worker).length;
    expect(result.stdout).toContain(`acquisitions     ${told.length}, ${fromAnother} of them handed over`);
    expect(await server.client().keys('*cli-demo*')).toEqual(['redisson_lock_token:{cli-demo}']);
  });

  it('on a terminal, redraws a board in place, then leaves its last frame and the summary', async () => {
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 120, rows: 40 });
    let written = '';
    terminal.on('data', (chunk: Buffer) => (written += chunk.toString()));
    const summary = await runDemo({ url: server.url, workers: 3, durationMs: 1_200, lockName: 'board-demo', out: terminal, live: true });
    expect(summary).toMatchObject({ backend: 'redis', overlaps: 0, tokensIncreasing: true });
    expect(summary.acquisitions).toBeGreaterThan(1);
    // eslint-disable-next-line no-control-regex
    expect((written.match(/\u001b\[2K/g) ?? []).length).toBeGreaterThan(0);
    // eslint-disable-next-line no-control-regex
    const plain = written.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(plain).toContain('██ holds the lock');
    expect(plain).toContain('Latest, oldest first (each acquisition with the end of the hold before it):');
    expect(plain).toMatch(/w1 {2}.{2} {2}(holds it|waits|idle)/u);
    expectSummary(plain);
    expect(plain).toContain(`acquisitions     ${summary.acquisitions}, ${summary.handOffs} of them handed over`);
  });

  it('redraws only on a terminal that can: not into a pipe, not in CI, not with TERM=dumb', () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    expect(isLiveTerminal(tty, {})).toBe(true);
    expect(isLiveTerminal(new PassThrough(), {})).toBe(false);
    expect(isLiveTerminal(tty, { CI: 'true' })).toBe(false);
    expect(isLiveTerminal(tty, { CI: 'false' })).toBe(true);
    expect(isLiveTerminal(tty, { TERM: 'dumb' })).toBe(false);
  });

  it('npm run demo (dist/demo/main.js) starts a redis-server of its own, ends by itself and stops it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env['REDIS_URL'];
    const child = spawn(process.execPath, ['dist/demo/main.js', '--duration', '1', '--workers', '2'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const url = /^Redis: (redis:\/\/127\.0\.0\.1:\d+) \(a redis-server started for this demo; set REDIS_URL to use yours\)$/m.exec(stdout)?.[1];
    expect(url).toBeDefined();
    expectSummary(stdout);
    // Its redis-server is gone.
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url ?? 'redis://127.0.0.1:0').port), '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});
