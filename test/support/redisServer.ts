import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';
import { createClient, type RedisClientOptions, type RedisClientType } from 'redis';
import { createClient as createNodeRedis4 } from 'redis4';
import { createClient as createNodeRedis6 } from 'redis6';
import type { RedisLike } from '../../src/index.js';
import { freePort } from '../../src/demo/localRedis.js';

/** A redis-server process this test started on a free loopback port. Never the machine's own 6379. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** A new ioredis client to this server; closed by `stop()`. */
  client(options?: RedisOptions): Redis;
  /** A new node-redis client to this server, connecting (commands wait for it); closed by `stop()`. */
  nodeRedis(options?: RedisClientOptions): RedisClientType;
  /** A new node-redis 4 client (the `redis4` alias of redis@4), connecting; closed by `stop()`. */
  nodeRedis4(): RedisLike;
  /** A new node-redis 6 client (the `redis6` alias of redis@6: RESP3 by default), connecting; closed by `stop()`. */
  nodeRedis6(): RedisLike;
  /** SIGKILL, then start again on the same port without persistence: every key is gone. */
  restart(): Promise<void>;
  /** Sends a signal to the server process (SIGSTOP / SIGCONT to pause it). */
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

let checked: string | undefined;

/** Servers still running. If this process ends without stopping them (a crash, a probe whose output was cut), they go with it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Which server the tests start: `RXLOCK_SERVER=valkey` for Valkey 8 (fetched by scripts/valkey.sh), Redis otherwise. */
export const SERVER_KIND: 'redis' | 'valkey' = process.env.RXLOCK_SERVER === 'valkey' ? 'valkey' : 'redis';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The server binary the tests start: Debian's redis-server, or the valkey-server that scripts/valkey.sh put in .cache/valkey. */
export function serverBinary(): string {
  if (SERVER_KIND === 'redis') return 'redis-server';
  return process.env.RXLOCK_VALKEY_SERVER ?? join(REPO_ROOT, '.cache/valkey/usr/bin/valkey-server');
}

/** The matching command-line client (for `--cluster create`). */
export function cliBinary(): string {
  return SERVER_KIND === 'redis' ? 'redis-cli' : join(dirname(serverBinary()), 'valkey-cli');
}

/** Fails loudly when the asked server is missing: tests that need Redis must never skip silently. */
function assertRedisServerInstalled(): string {
  if (checked !== undefined) return checked;
  const binary = serverBinary();
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      SERVER_KIND === 'valkey'
        ? `RXLOCK_SERVER=valkey but ${binary} is not runnable; run scripts/valkey.sh (.ci/run does), which puts Debian's valkey-server 8 there.`
        : 'redis-server is not installed or not runnable; install Debian\'s package "redis-server" (.ci/run does).',
    );
  }
  checked = binary;
  return binary;
}

async function launch(port: number, dir: string, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(
    assertRedisServerInstalled(),
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no', ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${SERVER_KIND}-server on ${port} did not start within 10 s:\n${output}`));
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
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${SERVER_KIND}-server on ${port} exited with ${code}:\n${output}`));
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
  const nodeClients = new Set<RedisClientType>();
  const nodeClients4 = new Set<ReturnType<typeof createNodeRedis4>>();
  const nodeClients6 = new Set<{ readonly isOpen: boolean; destroy(): void }>();
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
    nodeRedis(options = {}) {
      const client = createClient({ ...options, socket: { host: '127.0.0.1', port, ...options.socket } }) as RedisClientType;
      client.on('error', () => undefined);
      void client.connect().catch(() => undefined);
      nodeClients.add(client);
      return client;
    },
    nodeRedis4() {
      const client = createNodeRedis4({ socket: { host: '127.0.0.1', port } });
      client.on('error', () => undefined);
      void client.connect().catch(() => undefined);
      nodeClients4.add(client);
      return client as unknown as RedisLike;
    },
    nodeRedis6() {
      const client = createNodeRedis6({ socket: { host: '127.0.0.1', port } });
      client.on('error', () => undefined);
      void client.connect().catch(() => undefined);
      nodeClients6.add(client);
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
      for (const client of nodeClients) if (client.isOpen) client.destroy();
      for (const client of nodeClients4) if (client.isOpen) void client.disconnect().catch(() => undefined);
      for (const client of nodeClients6) if (client.isOpen) client.destroy();
      process.kill('SIGCONT');
      process.kill('SIGKILL');
      await exited(process);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
