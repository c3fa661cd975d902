import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { redisServerForSuite } from './support/suiteRedis.js';

const PROBE = fileURLToPath(new URL('./support/probes/exitProbe.ts', import.meta.url));

/** Runs the probe; resolves with its output and how long it lived after printing `done`. */
function runProbe(port: number, scenario: string): Promise<{ output: string; afterDoneMs: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', PROBE, String(port), scenario], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let doneAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (doneAt === undefined && output.includes('done')) doneAt = performance.now();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ output, afterDoneMs: doneAt === undefined ? Infinity : performance.now() - doneAt, code });
    });
  });
}

describe('a finished program exits by itself, without close() (issue 41, item 6)', () => {
  const server = redisServerForSuite();

  it.each(['uncontended', 'contended', 'timeout'])('%s: exits soon after its work is done and its own Redis client quit', async (scenario) => {
    const { output, afterDoneMs, code } = await runProbe(server.port, scenario);
    expect(output).toContain('done');
    expect(code).toBe(0);
    // Nothing of rxlock's keeps it alive: no watchdog tick, grace timer or pub/sub connection.
    expect(afterDoneMs).toBeLessThan(2_000);
  });
});
