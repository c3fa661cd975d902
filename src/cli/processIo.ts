import type { CliIo } from './CliIo.js';

/** The process's streams and signals. */
export const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  onInterrupt(listener) {
    const handler = (): void => listener();
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      // Removed only after this signal's other listeners ran: signal-exit (which restores the cursor) re-raises
      // the signal, killing the process, when it finds itself the only listener left.
      setImmediate(() => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      });
    };
  },
};
