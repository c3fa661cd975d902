import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/cli/render/format.js';
import { renderTable, visibleWidth } from '../../src/cli/render/table.js';

describe('table rendering', () => {
  it('aligns columns two spaces apart, cells over several lines, colour codes and wide characters measured as shown', () => {
    const c = picocolors.createColors(true);
    const table = renderTable(
      [c.bold('NAME'), 'KIND', 'WAITERS'],
      [
        ['orders', c.cyan('lock'), '2 queued\n1. a:1'],
        ['注文', 'latch', '–'],
      ],
    );
    // eslint-disable-next-line no-control-regex
    const plain = table.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain.split('\n')).toEqual(['NAME    KIND   WAITERS', 'orders  lock   2 queued', '               1. a:1', '注文    latch  –']);
    expect(visibleWidth(c.red('×∞–'))).toBe(3);
    expect(visibleWidth('e\u0301')).toBe(1);
  });

  it('writes durations compactly', () => {
    expect([850, 29_149, 245_000, 7_380_000, 273_600_000, null].map(formatDuration)).toEqual(['850ms', '29.1s', '4m05s', '2h03m', '3d04h', '∞']);
  });
});
