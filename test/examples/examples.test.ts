import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../support/redisServer.js';

// npm run test:examples: every program of examples/ runs as a user runs it (`node --import tsx`, importing
// `rxlock` by its package name, which resolves to the built dist/), against a redis-server of its own, as
// several processes where the example is about several instances. The checks read what the programs print.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const execute = promisify(execFile);

let redis: RedisServer | undefined;

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm run test:examples does)');
});

afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});

/** Runs `examples/<file>` once per environment, all at once, against a fresh redis-server; resolves with each one's lines. */
async function runExample(file: string, environments: readonly Record<string, string>[]): Promise<string[][]> {
  redis = await startRedis();
  const url = redis.url;
  const outputs = await Promise.all(
    environments.map(async (environment) => {
      const { stdout } = await execute(process.execPath, ['--import', 'tsx', join(root, 'examples', file)], {
        cwd: root,
        env: { ...process.env, REDIS_URL: url, ...environment },
        timeout: 60_000,
      });
      return stdout.split('\n').filter((line) => line !== '');
    }),
  );
  return outputs;
}

/** The numbers of the one line that starts with `prefix`, e.g. `summary: a ran 7 jobs, 0 overlaps` → [7, 0]. */
function numbersOf(lines: readonly string[], prefix: string): number[] {
  const found = lines.filter((line) => line.startsWith(prefix));
  expect(found, `one line starting with "${prefix}" in:\n${lines.join('\n')}`).toHaveLength(1);
  return [...found[0]!.matchAll(/\d+/g)].map((match) => Number(match[0]));
}

describe('examples/', () => {
  it('cron-leader.ts: three instances, one runs the job at a time, and the others take over as leaders stop', async () => {
    const outputs = await runExample('cron-leader.ts', [
      { INSTANCE: 'a', RUN_FOR_MS: '1500' },
      { INSTANCE: 'b', RUN_FOR_MS: '3000' },
      { INSTANCE: 'c', RUN_FOR_MS: '5000' },
    ]);
    const summaries = outputs.map((lines, index) => numbersOf(lines, `summary: ${'abc'[index]!}`));
    expect(summaries.map(([, overlaps]) => overlaps)).toEqual([0, 0, 0]);
    expect(summaries.reduce((sum, [runs]) => sum + runs!, 0)).toBeGreaterThanOrEqual(10);
    // c outlives the others by 2 s: whoever led before, c leads at the end and runs the job.
    expect(outputs[2]).toContain('c: leading');
    expect(summaries[2]![0]).toBeGreaterThanOrEqual(3);
  });

  it('http-account-updates.ts: two servers deposit concurrently into one account and no deposit is lost', async () => {
    const [first, second] = await runExample('http-account-updates.ts', [{ DEPOSITS: '40' }, { DEPOSITS: '40' }]);
    expect(first).toContain('deposits: 40 of 40 accepted');
    expect(second).toContain('deposits: 40 of 40 accepted');
    const balances = [first!, second!].map((lines) => numbersOf(lines, 'balance of account 42:')[1]!);
    // The process that finished last saw every deposit of both.
    expect(Math.max(...balances)).toBe(80);
  });

  it('worker-pipeline.ts: two workers, one consumer at a time, every job processed once', async () => {
    const outputs = await runExample('worker-pipeline.ts', [
      { WORKER: 'a', JOBS: '40', RUN_FOR_MS: '3000' },
      { WORKER: 'b', JOBS: '40', RUN_FOR_MS: '3000' },
    ]);
    const summaries = outputs.map((lines, index) => numbersOf(lines, `summary: ${'ab'[index]!}`));
    expect(summaries.reduce((sum, [processed]) => sum + processed!, 0)).toBe(40);
    expect(summaries.map(([, twice]) => twice)).toEqual([0, 0]);
    expect(outputs.flat().filter((line) => line.endsWith('queued 40 jobs'))).toHaveLength(1);
  });

  it('semaphore-concurrency.ts: three processes, never more than three renders at once', async () => {
    const outputs = await runExample('semaphore-concurrency.ts', [{ INSTANCE: 'a' }, { INSTANCE: 'b' }, { INSTANCE: 'c' }]);
    const summaries = outputs.map((lines, index) => numbersOf(lines, `summary: ${'abc'[index]!}`));
    for (const [rendered, most, limit] of summaries) {
      expect(rendered).toBe(6);
      expect(limit).toBe(3);
      expect(most).toBeLessThanOrEqual(3);
    }
    expect(Math.max(...summaries.map(([, most]) => most!))).toBeGreaterThanOrEqual(2);
  });

  it('nestjs/main.ts: two instances of a NestJS service, 409 for a charge that finds its account locked, no charge lost, the leader-only job on one instance and handed over on SIGTERM', async () => {
    // main.ts starts the two instances itself (as child processes, with the legacy decorators of tsconfig.run.json) and prints one line per check.
    const [lines] = await runExample('nestjs/main.ts', [{}]);
    expect(lines!.filter((line) => line.startsWith('FAIL'))).toEqual([]);
    // Eight checks: the concurrent charges, the 409s' body, the balance, sequential charges, the job on one instance, the SIGTERM, the hand-over, no lock left.
    expect(lines!.filter((line) => line.startsWith('ok '))).toHaveLength(8);
    expect(lines).toContain('all checks passed');
  });

  it('fenced-write.ts: the store refuses the write of the holder whose lease ran out', async () => {
    const [lines] = await runExample('fenced-write.ts', [{}]);
    expect(lines).toEqual([
      'A holds the lock with token 1',
      'A still holds it: false',
      'B holds the lock with token 2; its write accepted: true',
      'A wakes up and writes; accepted: false',
      expect.stringMatching(/^A's release: LockLostError: /),
      'the invoice says: paid by B',
    ]);
  });
});
