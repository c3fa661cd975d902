import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** What a bench process printed (stdout and stderr together) and how it ended. */
export interface BenchProcessResult {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs a script of `bench/` as its docs say (`node --expose-gc --import tsx <script>`, from the project's root,
 * against the built package) and waits for it to end. It starts its own redis-server: `REDIS_URL` is not passed on.
 */
export function runBenchScript(script: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<BenchProcessResult> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv['REDIS_URL'];
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
