import { Option, type Command } from 'commander';
import { CliError, EXIT_USAGE } from '../CliError.js';
import type { CliIo } from '../CliIo.js';
import type { LockObject, ObjectKind } from '../inspect/LockObject.js';
import { confirm } from '../unlock/confirm.js';
import { planForceUnlock, runPlan } from '../unlock/forceUnlock.js';
import { unlockIfUnchanged } from '../unlock/unlockIfUnchanged.js';
import { parseKinds } from './parseOptions.js';
import { requireObject } from './requireObject.js';
import { globalFlags, withConnection } from './withConnection.js';

interface UnlockOptions {
  readonly force?: boolean;
  readonly yes?: boolean;
  readonly kind?: Set<ObjectKind>;
  readonly shardedPubsub?: boolean;
}

const HELP = `
What --force does depends on what the name is (as Redisson's forceUnlock does, where it has one):
  lock             deleted whoever holds it; a waiter is woken (the client's forceUnlock)
  fairLock         deleted; waiters whose time ran out leave the queue; the head of the queue is woken
  readWriteLock    deleted with its readers' timeout keys; a writer (after a read lock) or everyone (after a write lock) is woken
  leasedSemaphore  every leased permit is taken back, as if its lease ran out; waiters are woken
  latch            opened (count → 0); everyone awaiting it is released
A plain semaphore has no holder to unlock. Nobody tells the holder: it keeps working until its next renewal
finds the lock gone (at most its renewal interval, a third of watchdogTimeoutMs: 10 s with rxlock's and
Redisson's defaults; a hold with a fixed lease, until the lease ends), while a waiter may already hold the
lock. Only writes checked against fencing tokens are safe from the two of them overlapping.
On a cluster waiters are woken with classic PUBLISH unless --sharded-pubsub is given; waiters listening the
other way still retry by themselves when the old holder's TTL would have run out.

Examples:
  rxlock unlock --force orders           asks first
  rxlock unlock --force orders --yes     for scripts`;

export function registerUnlock(program: Command, io: CliIo): void {
  program
    .command('unlock')
    .description('force-unlock a lock whoever holds it and wake its waiters (asks first unless --yes)')
    .argument('<name>', 'the lock (its Redis key)')
    .option('--force', 'required: delete the lock although this command does not hold it')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(new Option('--kind <kind>', 'semaphore, leasedSemaphore or latch: what an integer string nothing else tells apart is').argParser(parseKinds))
    .option('--sharded-pubsub', 'with --cluster: wake waiters with SPUBLISH (Redis 7+), for clients that listen with sharded pub/sub')
    .addHelpText('after', HELP)
    .action(async (name: string, options: UnlockOptions, command: Command) => {
      if (options.force !== true) {
        throw new CliError('unlock needs --force: this command never holds the lock, so it can only delete it whoever holds it', EXIT_USAGE);
      }
      const flags = globalFlags(command);
      await withConnection(flags, { shardedPubSub: options.shardedPubsub === true }, async (connection) => {
        const object = await requireObject(connection, name, options.kind);
        const plan = planForceUnlock(object);
        if (options.yes === true) {
          io.stdout.write(`${await runPlan(connection, name, plan)}\n`);
          return;
        }
        io.stderr.write(`${plan.description}\n`);
        const keepsWorking = HOLDERS_KEEP_WORKING[object.kind];
        if (keepsWorking !== undefined && object.holders.length > 0) io.stderr.write(`${keepsWorking}\n`);
        if (!(await confirm(io, `Force-unlock "${name}" on ${connection.address}? [y/N] `))) throw new CliError('not confirmed; nothing changed');
        // While the operator read the prompt, the dead holder's key may have expired and a waiter taken the lock.
        const recheck = async (): Promise<void> => {
          const now = await requireObject(connection, name, options.kind);
          if (holdersOf(now) !== holdersOf(object)) {
            throw new CliError(
              `"${name}" changed while you were asked (${holdersOf(object)} then, ${holdersOf(now)} now); nothing changed, run the command again`,
            );
          }
        };
        io.stdout.write(`${await unlockIfUnchanged(connection, name, plan, recheck)}\n`);
      });
    });
}

const KEEP_WORKING =
  'keeps working until its next renewal finds it gone: at most its renewal interval (10 s with the default watchdogTimeoutMs), or until a fixed lease ends. Meanwhile a waiter may take it; only writes checked against fencing tokens are safe.';

/** What the prompt says the holders of each kind do after a force-unlock: nobody tells them. */
const HOLDERS_KEEP_WORKING: Partial<Record<LockObject['kind'], string>> = {
  lock: `Its holder is not told: it ${KEEP_WORKING}`,
  fairLock: `Its holder is not told: it ${KEEP_WORKING}`,
  readWriteLock: `Its holders are not told: each ${KEEP_WORKING}`,
  leasedSemaphore: `Their holders are not told: each keeps using its permit until its next renewal finds it gone: at most its renewal interval (10 s with the default watchdogTimeoutMs), or until a fixed lease ends.`,
};

/** The kind and holders of an object, as the prompt named them. */
function holdersOf(object: LockObject): string {
  const holders = object.holders.map((holder) => `${holder.id} ×${holder.holds}`).join(', ');
  return `${object.kind} held by ${holders === '' ? 'nobody' : holders}`;
}
