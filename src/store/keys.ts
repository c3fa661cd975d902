/**
 * Redisson's key rule: `prefix:{name}`, or `prefix:name` when the name already has a hash tag.
 * Either way the key lands in the same cluster slot as the lock hash `name` itself.
 */
export function prefixed(prefix: string, name: string): string {
  return name.includes('{') ? `${prefix}:${name}` : `${prefix}:{${name}}`;
}

/** Redisson's `suffixName`: `{name}:suffix`, or `name:suffix` when the name already has a hash tag. */
export function suffixed(name: string, suffix: string): string {
  return name.includes('{') ? `${name}:${suffix}` : `{${name}}:${suffix}`;
}
