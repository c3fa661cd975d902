import { CommanderError } from 'commander';
import { CliError, EXIT_USAGE } from './CliError.js';
import type { CliIo } from './CliIo.js';
import { createProgram } from './program.js';

/** Runs `rxlock` with `argv` (as process.argv: node, script, arguments…) and answers the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await createProgram(io).parseAsync([...argv]);
    return 0;
  } catch (error) {
    // commander already printed its own message (or the help) to stderr.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    if (error instanceof CliError) {
      io.stderr.write(`rxlock: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`rxlock: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}
