import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/cli/render/format.js';
import { idShortener } from '../../src/cli/render/shortIds.js';
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

  it('shortens random client ids and permit ids to the shortest prefix, from 8 characters, that tells them apart', () => {
    const a = '3f1e2a9b-5c4d-4e3f-9a8b-7c6d5e4f3a2b';
    const b = '3f1e2a9b-77aa-4e3f-9a8b-7c6d5e4f3a2b';
    const alone = idShortener([`${a}:#1`, `${a}:#2`, 'billing-1:#1']);
    expect([`${a}:#1`, `${a}:#2`, 'billing-1:#1', a].map(alone)).toEqual(['3f1e2a9b…:#1', '3f1e2a9b…:#2', 'billing-1:#1', '3f1e2a9b…']);
    // Two ids that share their first 8 characters are shown as far as they differ.
    const both = idShortener([`${a}:#1`, `${b}:7`]);
    expect([`${a}:#1`, `${b}:7`].map(both)).toEqual(['3f1e2a9b-5…:#1', '3f1e2a9b-7…:7']);
    const permit = '0123456789abcdef0123456789abcdef';
    expect(idShortener([permit])(permit)).toBe('01234567…');
    // Not random ids: a name a client chose, a hex string of another length, an id with a UUID inside.
    for (const id of ['app-1:worker-1', 'abcdef12:1', `x${a}:1`]) expect(idShortener([id])(id)).toBe(id);
  });
});
