import { Option, type Command } from 'commander';
import type { CliIo } from '../CliIo.js';
import { isGlob } from '../inspect/glob.js';
import { listObjects, matchesKinds } from '../inspect/listObjects.js';
import type { ObjectKind } from '../inspect/LockObject.js';
import { chooseColors } from '../render/Colors.js';
import { objectsTable } from '../render/objectsTable.js';
import { KIND_HELP, parseKinds } from './parseOptions.js';
import { requireObject } from './requireObject.js';
import { globalFlags, withConnection } from './withConnection.js';

interface LsOptions {
  readonly json?: boolean;
  readonly kind?: Set<ObjectKind>;
}

const HELP = `
Names are Redis keys (with the client's keyPrefix). A pattern with glob characters (* ? [ ] \\) is matched with
SCAN, never KEYS; a plain name is looked up directly and is an error when there is no such lock or its key holds
something else. WAITERS lists the waiters Redis knows by name (a fair lock's queue, rxlock's waiters of a lock) and
the client connections subscribed to the object's wake-up channel (all Redis knows of Redisson's waiters).

Random client ids (UUIDs, the default when a client is not given a clientId) and permit ids are shortened to
the shortest prefix, from 8 characters, that tells those shown apart ("3f1e2a9b…:#1"); --json prints them
whole. Give each client a clientId ("billing-1") to see who holds what by name.

KIND lock* is a held lock that nobody waits for: a fair lock's queue keys go with its last waiter, so a fair
lock with an empty queue is the same hash as a lock, and Redis cannot tell which it is (--json says "lock").
"last token N" is the name's fencing counter, the token the last fenced acquisition drew: the holder's token
if the holder asked for fencing, which Redis does not record.

Examples:
  rxlock ls                       every lock-family object
  rxlock ls 'orders:*' --json     as JSON, for scripts
  rxlock ls --kind semaphore      integer strings read as semaphores`;

export function registerLs(program: Command, io: CliIo): void {
  program
    .command('ls')
    .description('list locks, fair locks, read-write locks, semaphores, latches and fencing counters: holders, TTL, waiters')
    .argument('[pattern]', 'Redis glob over names', '*')
    .option('--json', 'print a JSON array for scripts')
    .addOption(new Option('--kind <kinds>', KIND_HELP).argParser(parseKinds))
    .addHelpText('after', HELP)
    .action(async (pattern: string, options: LsOptions, command: Command) => {
      const flags = globalFlags(command);
      await withConnection(flags, {}, async (connection) => {
        const objects = isGlob(pattern)
          ? await listObjects(connection, pattern, { kinds: options.kind })
          : [await requireObject(connection, pattern, options.kind)].filter((object) => matchesKinds(object, options.kind));
        if (options.json === true) {
          io.stdout.write(`${JSON.stringify(objects, null, 2)}\n`);
        } else if (objects.length === 0) {
          io.stdout.write(`no lock-family objects match ${JSON.stringify(pattern)} on ${connection.address}\n`);
        } else {
          io.stdout.write(`${objectsTable(objects, chooseColors(io.stdout, flags.color))}\n`);
        }
      });
    });
}
