import { Option, type Command } from 'commander';
import { createLogUpdate } from 'log-update';
import { skip, take, lastValueFrom } from 'rxjs';
import { monotonicScheduler } from '../../util/monotonicScheduler.js';
import { CliError } from '../CliError.js';
import type { CliIo } from '../CliIo.js';
import type { Connection } from '../connection/Connection.js';
import { listObjects } from '../inspect/listObjects.js';
import type { ObjectKind } from '../inspect/LockObject.js';
import { chooseColors, type Colors } from '../render/Colors.js';
import { renderWatchFrame, type FrameContext } from '../render/watchFrame.js';
import { watchFrames } from '../watch/watchFrames.js';
import { WatchState } from '../watch/WatchState.js';
import { KIND_HELP, milliseconds, parseKinds } from './parseOptions.js';
import { globalFlags, withConnection } from './withConnection.js';

interface WatchOptions {
  readonly interval: number;
  readonly once?: boolean;
  readonly kind?: Set<ObjectKind>;
}

/** `--once` prints its first refresh at once; with `--interval` given it waits for a second one, to measure rates over it. */
type OnceRefreshes = 1 | 2;

const HELP = `
Redis keeps no history, so watch compares refreshes: "+" marks objects that appeared, "-" ones that went
(both for 3 s). HANDOFFS/S counts holders that were not there at the previous refresh, over the last 10 s: a
lower bound, since a refresh sees only the holder of that moment. LONGEST WAIT is exact for rxlock's waiters
of a lock (Redis records when they started); otherwise it counts from the refresh that first saw the waiter
("≥"). Watch only reads: it subscribes to nothing, so it cannot change how locks are handed over.

--once prints the first refresh and exits; a rate needs two refreshes, so HANDOFFS/S shows "–" unless
--interval is given too, in which case it waits that long for a second refresh and measures over it.

Examples:
  rxlock watch 'orders:*'
  rxlock watch --once                    one frame, at once
  rxlock watch --once --interval 500     one frame, with handoff rates over two refreshes 500 ms apart`;

export function registerWatch(program: Command, io: CliIo): void {
  program
    .command('watch')
    .description('a live view that refreshes in place: locks coming and going, TTLs, handoffs per second, longest wait')
    .argument('[pattern]', 'Redis glob over names', '*')
    .option('-i, --interval <ms>', 'time between refreshes', milliseconds(100), 1_000)
    .option('--once', 'print one frame and exit (with --interval: after two refreshes, so that rates can be measured)')
    .addOption(new Option('--kind <kinds>', KIND_HELP).argParser(parseKinds))
    .addHelpText('after', HELP)
    .action(async (pattern: string, options: WatchOptions, command: Command) => {
      const flags = globalFlags(command);
      const colors = chooseColors(io.stdout, flags.color);
      const refreshes: OnceRefreshes = command.getOptionValueSource('interval') === 'default' ? 1 : 2;
      await withConnection(flags, { reconnect: options.once !== true }, (connection) =>
        options.once === true ? printOnce(io, connection, pattern, options, refreshes, colors) : watchLive(io, connection, pattern, options, colors),
      );
    });
}

function frames(connection: Connection, pattern: string, options: WatchOptions) {
  return watchFrames(() => listObjects(connection, pattern, { kinds: options.kind }), new WatchState(), options.interval, monotonicScheduler);
}

function context(connection: Connection, pattern: string, intervalMs: number | undefined, live: boolean): FrameContext {
  return { pattern, address: connection.address, intervalMs, clock: new Date().toLocaleTimeString('en-GB'), live };
}

async function printOnce(io: CliIo, connection: Connection, pattern: string, options: WatchOptions, refreshes: OnceRefreshes, colors: Colors): Promise<void> {
  const frame = await lastValueFrom(frames(connection, pattern, options).pipe(skip(refreshes - 1), take(1)));
  if (frame.error !== undefined) throw new CliError(`watch: ${frame.error} (${connection.address})`);
  const intervalMs = refreshes === 1 ? undefined : options.interval;
  io.stdout.write(`${renderWatchFrame(frame, context(connection, pattern, intervalMs, false), colors)}\n`);
}

/** Redraws in place on a terminal (appends frames otherwise) until interrupted, then leaves the last frame and the cursor as they were. */
function watchLive(io: CliIo, connection: Connection, pattern: string, options: WatchOptions, colors: Colors): Promise<void> {
  const draw = io.stdout.isTTY ? createLogUpdate(io.stdout) : undefined;
  return new Promise<void>((resolve) => {
    const subscription = frames(connection, pattern, options).subscribe((frame) => {
      const text = renderWatchFrame(frame, context(connection, pattern, options.interval, draw !== undefined), colors);
      if (draw === undefined) io.stdout.write(`${text}\n\n`);
      else draw(text);
    });
    const stopListening = io.onInterrupt(() => {
      stopListening();
      subscription.unsubscribe();
      draw?.done();
      resolve();
    });
  });
}
