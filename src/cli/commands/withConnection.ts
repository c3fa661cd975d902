import type { Command } from 'commander';
import { connect, type ConnectBehaviour } from '../connection/connect.js';
import type { Connection } from '../connection/Connection.js';
import type { ConnectionFlags } from '../connection/ConnectionFlags.js';

/** The global options of `rxlock`, as commander parsed them. */
export interface GlobalFlags extends ConnectionFlags {
  /** false when `--no-color` was given. */
  readonly color: boolean;
}

export function globalFlags(command: Command): GlobalFlags {
  return command.optsWithGlobals<GlobalFlags>();
}

/** Connects, runs `body`, and closes the connection whatever happened. */
export async function withConnection<T>(flags: ConnectionFlags, behaviour: ConnectBehaviour, body: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await connect(flags, behaviour);
  try {
    return await body(connection);
  } finally {
    await connection.close();
  }
}
