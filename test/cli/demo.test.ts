import { describe, expect, it } from 'vitest';
import { redisServerForSuite } from '../support/suiteRedis.js';
import { CLI_TEST_TIMEOUT_MS, rxlock } from './cliProcess.js';

describe('rxlock demo', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  const server = redisServerForSuite();

  it('runs the demo against the given Redis and ends with its summary', async () => {
    const result = await rxlock(['demo', '--duration', '1.5', '--workers', '2', '--lock', 'cli-demo', '--url', server.url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rxlock demo: 2 workers contend for the lock "cli-demo"');
    expect(result.stdout).toMatch(/\d+ acquisitions, 0 overlapping holders, fencing tokens strictly increasing/);
    const lines = result.stdout.split('\n');
    // Both workers get the lock (the CLI's connections fail fast: no offline queue, as in test/failFastClient.test.ts).
    for (const worker of ['w1', 'w2']) expect(lines.some((line) => line.includes(`${worker} acquired token`))).toBe(true);
    // The timeline never draws two holders (██) on one line, though a hand-off's "acquired" comes before "released".
    expect(lines.filter((line) => line.split('██').length > 2)).toEqual([]);
    expect(await server.client().keys('*cli-demo*')).toEqual(['redisson_lock_token:{cli-demo}']);
  });
});
