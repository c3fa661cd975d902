// eslint-disable-next-line no-control-regex
const ANSI_SGR = /\u001b\[[0-9;]*m/g;

/** Characters two columns wide in a terminal: CJK, Hangul, full-width forms, most emoji. */
function isWide(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  );
}

/** Combining marks, zero-width spaces and joiners, and variation selectors take no column. */
function isZeroWidth(codePoint: number): boolean {
  return (codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f) || (codePoint >= 0xfe00 && codePoint <= 0xfe0f);
}

/** How many terminal columns `text` takes, colour codes aside. */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(ANSI_SGR, '')) {
    const codePoint = char.codePointAt(0) ?? 0;
    if (!isZeroWidth(codePoint)) width += isWide(codePoint) ? 2 : 1;
  }
  return width;
}

/**
 * A borderless table (like `kubectl get`): a header row, then one row per object, columns two spaces
 * apart; a cell may span several lines. Linear in the number of cells (cli-table3 took 25 s for 10 000 rows).
 */
export function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [head, ...rows].map((row) => row.map((cell) => cell.split('\n')));
  const widths = head.map(() => 0);
  for (const row of cells) {
    row.forEach((cell, column) => {
      for (const line of cell) widths[column] = Math.max(widths[column] ?? 0, visibleWidth(line));
    });
  }
  const lines: string[] = [];
  for (const row of cells) {
    const height = Math.max(...row.map((cell) => cell.length));
    for (let line = 0; line < height; line++) {
      const text = widths.map((width, column) => {
        const value = row[column]?.[line] ?? '';
        return value + ' '.repeat(width - visibleWidth(value));
      });
      lines.push(text.join('  ').trimEnd());
    }
  }
  return lines.join('\n');
}
