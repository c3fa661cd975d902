import Table from 'cli-table3';
import type { BenchResults } from '../results.js';
import { ms } from './format.js';
import { resultTables, type TableData } from './tables.js';

/** The run's header lines: when, where, with which settings. */
export function runHeader(results: BenchResults): string[] {
  const { info, ping, pingAfterPause, publishAfterPause, idleTimer } = results;
  const { options } = info;
  return [
    `rxlock bench, ${info.date} (${Math.round(info.durationSeconds)} s)`,
    `${info.server}; Node ${info.node}; ${info.cpu}; load average ${info.loadStart.toFixed(2)} at start, ${info.loadEnd.toFixed(2)} at end`,
    `windows ${options.windowMs} ms × ${options.rounds} rounds per contender, interleaved; PING round trip p50 ${ms(ping?.p50Ms)} ms, p99 ${ms(ping?.p99Ms)} ms (back to back), p50 ${ms(pingAfterPause?.p50Ms)} ms after a 1 ms pause; a script that only publishes, to its message at a subscriber, p50 ${ms(publishAfterPause?.p50Ms)} ms after a 1 ms pause; those 1 ms pauses (timers while idle) took p50 ${ms(idleTimer?.p50Ms)} ms, p99 ${ms(idleTimer?.p99Ms)} ms, max ${ms(idleTimer?.maxMs)} ms${info.gcExposed ? '' : '; no --expose-gc: heap figures missing'}`,
  ];
}

export function renderTerminal(results: BenchResults): string {
  const parts = [runHeader(results).join('\n')];
  for (const data of resultTables(results)) {
    const table = new Table({ head: data.head, style: { head: [], border: [] } });
    table.push(...data.rows);
    parts.push(`${data.title}\n${table.toString()}`);
  }
  return `${parts.join('\n\n')}\n`;
}

function markdownTable(data: TableData): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const line = (cells: readonly string[]): string => `| ${cells.map(escape).join(' | ')} |`;
  return [
    `**${data.title}**`,
    '',
    line(data.head),
    line(data.head.map((_, i) => (i === 0 || data.numeric === false ? '---' : '---:'))),
    ...data.rows.map(line),
  ].join('\n');
}

export function renderMarkdown(results: BenchResults): string {
  const header = runHeader(results)
    .map((line) => `${line}  `)
    .join('\n');
  return `${[header, ...resultTables(results).map(markdownTable)].join('\n\n')}\n`;
}
