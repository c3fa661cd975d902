/** A short, unambiguous rendering of a bad value for error messages. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return `${JSON.stringify(shown)} (string of length ${value.length})`;
  }
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return 'undefined';
}

/** How error messages name a call: `lock$("orders")`. */
export function callSite(fn: string, name: unknown): string {
  if (typeof name !== 'string') return `${fn}(…)`;
  return `${fn}(${JSON.stringify(name.length > 60 ? `${name.slice(0, 57)}...` : name)})`;
}
