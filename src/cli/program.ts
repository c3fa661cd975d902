import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { CliIo } from './CliIo.js';
import { registerDemo } from './commands/demoCommand.js';
import { registerLs } from './commands/lsCommand.js';
import { milliseconds } from './commands/parseOptions.js';
import { registerUnlock } from './commands/unlockCommand.js';
import { registerWatch } from './commands/watchCommand.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_URL } from './connection/ConnectionFlags.js';

/** package.json sits two levels up from both src/cli and dist/cli. */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

/** The `rxlock` command line. Errors are thrown (commander's `exitOverride`), never `process.exit`. */
export function createProgram(io: CliIo): Command {
  const program = new Command('rxlock')
    .description('Who holds which lock, since when, and who waits: rxlock and Redisson locks and synchronizers on Redis.')
    .version(version(), '-V, --version')
    .addOption(new Option('-u, --url <url>', `Redis URL, redis://[user:password@]host:port[/db] or rediss:// (default: ${DEFAULT_URL})`).env('REDIS_URL'))
    .option('--cluster <nodes>', 'Redis Cluster seed nodes, host:port,host:port (instead of --url)')
    .option('--user <name>', 'ACL user name')
    .addOption(new Option('--password <password>', 'password (prefer REDIS_PASSWORD: arguments show in ps)').env('REDIS_PASSWORD'))
    .option('--tls', 'connect with TLS (implied by rediss://)')
    .option('--tls-ca <file>', 'PEM file of CA certificates to trust (implies --tls)')
    .option('--connect-timeout <ms>', 'give up connecting after this long', milliseconds(1), DEFAULT_CONNECT_TIMEOUT_MS)
    .option('--no-color', 'no colours (also NO_COLOR=1)')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();
  registerLs(program, io);
  registerWatch(program, io);
  registerUnlock(program, io);
  registerDemo(program, io);
  return program;
}
