/** An error the command line reports as one line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }

  override get name(): string {
    return 'CliError';
  }
}

/** Exit codes: 0 success, 1 a failure (cannot connect, no such lock, wrong type, declined), 2 bad usage. */
export const EXIT_USAGE = 2;
