import type { LockObject } from '../inspect/LockObject.js';
import type { Colors } from './Colors.js';
import { holdersOf, stateOf, ttlOf, waitersOf } from './describeObject.js';
import { renderTable } from './table.js';

/** `rxlock ls` as a table: NAME, KIND, STATE, HOLDERS, TTL, WAITERS. */
export function objectsTable(objects: readonly LockObject[], c: Colors): string {
  const head = ['NAME', 'KIND', 'STATE', 'HOLDERS', 'TTL', 'WAITERS'].map((title) => c.bold(title));
  return renderTable(
    head,
    objects.map((object) => [c.bold(object.name), c.cyan(object.kind), stateOf(object, c), holdersOf(object, c), ttlOf(object, c), waitersOf(object, c)]),
  );
}
