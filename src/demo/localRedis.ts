import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on loopback (the OS picks one; it is free again when this resolves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface LocalRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` from PATH on a free loopback port, without persistence. Resolves undefined when
 * there is no redis-server to start.
 */
export async function startLocalRedis(): Promise<LocalRedis | undefined> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ready = await new Promise<boolean>((resolve) => {
    let output = '';
    const timer = setTimeout(() => resolve(false), 5_000);
    child.once('error', () => resolve(false));
    child.once('exit', () => resolve(false));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
  if (!ready) {
    child.kill('SIGKILL');
    return undefined;
  }
  child.stdout?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }
      }),
  };
}
