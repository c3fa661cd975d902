/** What a command reads, writes and listens to; the process's own (`processIo`) in `main.ts`. */
export interface CliIo {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  /** Calls `listener` on Ctrl-C (SIGINT) or SIGTERM until the returned function is called. */
  onInterrupt(listener: () => void): () => void;
}
