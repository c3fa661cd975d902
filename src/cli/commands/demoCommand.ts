import type { Command } from 'commander';
import { runDemo } from '../../demo/runDemo.js';
import { CliError } from '../CliError.js';
import { connect } from '../connection/connect.js';
import type { CliIo } from '../CliIo.js';
import { positive } from './parseOptions.js';
import { globalFlags } from './withConnection.js';

interface DemoFlags {
  readonly duration: number;
  readonly workers: number;
  readonly lock: string;
}

export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('several workers contend for one lock, shown live, then a summary (the same as npm run demo)')
    .option('-d, --duration <seconds>', 'how long to run', positive, 6)
    .option('-w, --workers <count>', 'how many contending workers', positive, 4)
    .option('--lock <name>', 'the lock they contend for', 'demo:orders')
    .addHelpText('after', '\nWithout --url or REDIS_URL the demo starts its own redis-server on a free port (or, without one, runs in memory).')
    .action(async (options: DemoFlags, command: Command) => {
      const flags = globalFlags(command);
      const explicit = flags.url !== undefined || flags.cluster !== undefined || flags.user !== undefined || flags.password !== undefined || flags.tls === true;
      const summary = await runDemo({
        durationMs: options.duration * 1_000,
        workers: Math.floor(options.workers),
        lockName: options.lock,
        out: io.stdout,
        // With connection flags every worker connects as the other commands do (user, password, TLS, cluster).
        ...(explicit && {
          connect: async () => {
            const connection = await connect(flags);
            return { redis: connection.redis, close: () => connection.close() };
          },
          connectionLabel: flags.cluster ?? flags.url ?? 'REDIS_URL',
        }),
      });
      if (summary.overlaps > 0 || !summary.tokensIncreasing) {
        throw new CliError(`demo: ${summary.overlaps} overlapping holds, fencing tokens ${summary.tokensIncreasing ? 'increasing' : 'not increasing'}`);
      }
    });
}
