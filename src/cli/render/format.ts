/** A duration for a table cell: `850ms`, `29.1s`, `4m05s`, `2h03m`, `3d04h`; `∞` for no expiry. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '∞';
  const value = Math.max(0, Math.round(ms));
  if (value < 1_000) return `${value}ms`;
  if (value < 60_000) return `${(Math.floor(value / 100) / 10).toFixed(1)}s`;
  const seconds = Math.floor(value / 1_000);
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m${pad(seconds % 60)}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)}h${pad(Math.floor(seconds / 60) % 60)}m`;
  return `${Math.floor(seconds / 86_400)}d${pad(Math.floor(seconds / 3_600) % 24)}h`;
}

/** `1 waiting client`, `2 waiting clients`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** At most `max` lines; the rest summed up as `… and N more`. */
export function capLines(lines: readonly string[], max = 5): string[] {
  if (lines.length <= max) return [...lines];
  return [...lines.slice(0, max - 1), `… and ${lines.length - max + 1} more`];
}
