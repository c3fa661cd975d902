import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Per test: a test may start several CLI processes, each a fresh Node process, on a busy machine. */
export const CLI_TEST_TIMEOUT_MS = 120_000;

/** The environment of a CLI run: no colours, and nothing of this machine's Redis settings. */
function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env['REDIS_URL'];
  delete env['REDIS_PASSWORD'];
  delete env['FORCE_COLOR'];
  return { ...env, ...extra };
}

/**
 * Starts `rxlock <args>` with piped stdio: the built `dist/cli/main.js` (what `npx rxlock` runs; `npm test`
 * builds before it tests), or the TypeScript source through tsx when there is no build.
 */
export function spawnRxlock(args: readonly string[], env?: Record<string, string>): ChildProcessWithoutNullStreams {
  const entry = existsSync(BUILT) ? [BUILT] : ['--import', 'tsx', 'src/cli/main.ts'];
  return spawn(process.execPath, [...entry, ...args], { env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
}

const BUILT = 'dist/cli/main.js';

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command line as a child process (see `spawnRxlock`). `input` is written to its stdin, which is then closed. */
export function rxlock(args: readonly string[], options: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawnRxlock(args, options.env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`rxlock ${args.join(' ')} did not finish within ${options.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
