import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from '../../src/demo/localRedis.js';

/** A redis-server process this test started on a free loopback port. Never the machine's own 6379. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** A new ioredis client to this server; closed by `stop()`. */
  client(options?: RedisOptions): Redis;
  /** SIGKILL, then start again on the same port without persistence: every key is gone. */
  restart(): Promise<void>;
  /** Sends a signal to the server process (SIGSTOP / SIGCONT to pause it). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

let checked = false;

/** Servers still running. If this process ends without stopping them (a crash, a probe whose output was cut), they go with it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Fails loudly when redis-server is missing: tests that need Redis must never skip silently. */
function assertRedisServerInstalled(): void {
  if (checked) return;
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error('redis-server is not installed or not runnable; install Debian\'s package "redis-server" (.ci/run does).');
  }
  checked = true;
}

async function launch(port: number, dir: string, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no', ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server on ${port} did not start within 10 s:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server on ${port} exited with ${code}:\n${output}`));
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export { freePort };

/** Starts a redis-server on a free loopback port. `args` are extra command-line settings. */
export async function startRedis(args: readonly string[] = []): Promise<RedisServer> {
  assertRedisServerInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'rxlock-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, dir, args);
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
  let process = child;
  const clients = new Set<Redis>();
  const exited = (p: ChildProcess): Promise<void> =>
    new Promise((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve() : p.once('exit', () => resolve())));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    client(options = {}) {
      const client = new Redis({ port, host: '127.0.0.1', ...options });
      client.on('error', () => undefined);
      clients.add(client);
      return client;
    },
    async restart() {
      process.kill('SIGKILL');
      await exited(process);
      process = await launch(port, dir, args);
    },
    signal(signal) {
      process.kill(signal);
    },
    async stop() {
      for (const client of clients) client.disconnect();
      process.kill('SIGCONT');
      process.kill('SIGKILL');
      await exited(process);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
