import { CliError } from '../CliError.js';
import type { Connection } from '../connection/Connection.js';
import { inspectName } from '../inspect/listObjects.js';
import type { LockObject, ObjectKind } from '../inspect/LockObject.js';

/** The object named `name`, or a CliError saying there is none or that the key holds something else. */
export async function requireObject(connection: Connection, name: string, kinds?: ReadonlySet<ObjectKind>): Promise<LockObject> {
  const recognition = await inspectName(connection, name, kinds);
  switch (recognition.found) {
    case 'object':
      return recognition.object;
    case 'foreign':
      throw new CliError(
        `wrong type at "${name}": the key holds a ${recognition.type} that is not a lock, fair lock, read-write lock, semaphore or latch (${connection.address})`,
      );
    case 'nothing':
      throw new CliError(`no such lock: "${name}" (no key of that name, nor a queue, waiters or fencing counter of it on ${connection.address})`);
  }
}
