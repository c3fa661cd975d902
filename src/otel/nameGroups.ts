/** The attribute value used once `maxNameGroups` distinct groups were seen. */
export const OTHER_GROUP = '_other';

/** The default grouping: the name up to its first ':' (`orders:1234` → `orders`). */
export function nameUpToFirstColon(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(0, colon);
}

/** Maps names to groups, letting through at most `max` distinct groups; the rest become `_other`. */
export function cappedNameGroups(group: (name: string) => string | undefined, max: number): (name: string) => string | undefined {
  const seen = new Set<string>();
  return (name) => {
    const value = group(name);
    if (value === undefined || seen.has(value)) return value;
    if (seen.size >= max) return OTHER_GROUP;
    seen.add(value);
    return value;
  };
}
