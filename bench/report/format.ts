/** Number formats of the tables. Missing figures print as an en dash. */
const MISSING = '–';

export function count(value: number | undefined): string {
  return value === undefined ? MISSING : Math.round(value).toLocaleString('en-US');
}

export function ms(value: number | undefined): string {
  if (value === undefined) return MISSING;
  if (value < 1) return value.toFixed(3);
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return Math.round(value).toLocaleString('en-US');
}

export function fixed(value: number | undefined, digits = 2): string {
  return value === undefined ? MISSING : value.toFixed(digits);
}

/** A share as a percentage; one that rounds to zero prints as 0.0 %, whatever its sign. */
export function percent(value: number | undefined): string {
  if (value === undefined) return MISSING;
  const text = (value * 100).toFixed(1);
  return `${text === '-0.0' ? '0.0' : text} %`;
}

export function bytes(value: number | undefined): string {
  if (value === undefined) return MISSING;
  if (Math.abs(value) >= 1024 * 1024) return `${(value / 1024 / 1024).toFixed(1)} MB`;
  if (Math.abs(value) >= 1024) return `${(value / 1024).toFixed(2)} KB`;
  return `${Math.round(value)} B`;
}

export function range(values: readonly number[], format: (value: number) => string): string {
  if (values.length === 0) return MISSING;
  return values.length === 1 ? format(values[0]!) : `${format(Math.min(...values))}–${format(Math.max(...values))}`;
}
