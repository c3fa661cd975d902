import type { LockObject } from '../inspect/LockObject.js';
import type { WatchFrame, WatchRow } from '../watch/WatchFrame.js';
import type { Colors } from './Colors.js';
import { kindOf, MAY_BE_FAIR_NOTE, mayBeFair, ttlOf } from './describeObject.js';
import { formatDuration, plural } from './format.js';
import { idShortener, shownIds, type ShortenId } from './shortIds.js';
import { renderTable } from './table.js';

/** What the frame's header says besides the figures. */
export interface FrameContext {
  readonly pattern: string;
  readonly address: string;
  /** Time between refreshes; undefined for `--once` with a single refresh. */
  readonly intervalMs: number | undefined;
  /** Wall-clock time of the refresh, as shown. */
  readonly clock: string;
  /** A live view that refreshes (as opposed to `--once`): add the quit hint. */
  readonly live: boolean;
}

/** One screen of `rxlock watch`: a header with totals, then one line per object. */
export function renderWatchFrame(frame: WatchFrame, context: FrameContext, c: Colors): string {
  const rate = frame.handoffsPerSecond === undefined ? '–' : frame.handoffsPerSecond.toFixed(1);
  const present = frame.rows.filter((row) => row.change !== 'gone').length;
  const lines = [
    `${c.bold(`rxlock watch ${JSON.stringify(context.pattern)}`)} on ${context.address} · ${context.intervalMs === undefined ? 'one refresh' : `every ${formatDuration(context.intervalMs)}`} · ${context.clock}`,
    `${plural(present, 'object')} · ${frame.held} held · ${frame.waiting} waiting · ${rate} handoffs/s`,
  ];
  if (frame.error !== undefined) lines.push(c.red(`refresh failed: ${frame.error}; retrying`));
  lines.push('');
  if (frame.rows.length === 0) {
    lines.push(c.dim('no lock-family objects match'));
  } else {
    const head = ['  NAME', 'KIND', 'HOLDERS', 'TTL', 'WAITERS', 'LONGEST WAIT', 'HANDOFFS/S'].map((title) => c.bold(title));
    const shorten = idShortener(shownIds(frame.rows.map((row) => row.object)));
    lines.push(
      renderTable(
        head,
        frame.rows.map((row) => cells(row, c, shorten)),
      ),
    );
    if (frame.rows.some((row) => row.change !== 'gone' && mayBeFair(row.object))) lines.push('', c.dim(MAY_BE_FAIR_NOTE));
  }
  if (context.live) lines.push('', c.dim('Ctrl-C to quit'));
  return lines.join('\n');
}

function cells(row: WatchRow, c: Colors, shorten: ShortenId): string[] {
  const { object } = row;
  const marker = row.change === 'new' ? c.green('+') : row.change === 'gone' ? c.red('-') : ' ';
  const wait =
    row.longestWait === undefined
      ? '–'
      : `${row.longestWait.exact ? '' : '≥'}${formatDuration(row.longestWait.ms)}${row.longestWait.who === undefined ? '' : ` ${shorten(row.longestWait.who)}`}`;
  const values = [
    `${marker} ${object.name}`,
    kindOf(object),
    holdersInOneLine(object, shorten),
    row.change === 'gone' ? 'gone' : ttlOf(object, c),
    waitersInOneLine(object),
    wait,
    row.handoffsPerSecond === undefined ? '–' : row.handoffsPerSecond.toFixed(1),
  ];
  return row.change === 'gone' ? values.map((value) => c.dim(value)) : values;
}

function holdersInOneLine(object: LockObject, shorten: ShortenId): string {
  const [first] = object.holders;
  if (first === undefined) return '–';
  const role = first.role === undefined ? '' : first.role === 'writer' ? 'W ' : 'R ';
  const more = object.holders.length > 1 ? ` +${object.holders.length - 1}` : '';
  return `${role}${shorten(first.id)} ×${first.holds}${more}`;
}

function waitersInOneLine(object: LockObject): string {
  const { queuedCount, subscribedClients } = object.waiters;
  const parts: string[] = [];
  if (queuedCount > 0) parts.push(`${queuedCount} queued`);
  if (subscribedClients > 0) parts.push(plural(subscribedClients, 'client'));
  return parts.length === 0 ? '–' : parts.join(', ');
}
