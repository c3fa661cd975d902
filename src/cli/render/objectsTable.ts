import type { LockObject } from '../inspect/LockObject.js';
import type { Colors } from './Colors.js';
import { holdersOf, kindOf, MAY_BE_FAIR_NOTE, mayBeFair, stateOf, ttlOf, waitersOf } from './describeObject.js';
import { idShortener, shownIds } from './shortIds.js';
import { renderTable } from './table.js';

/** `rxlock ls` as a table: NAME, KIND, STATE, HOLDERS, TTL, WAITERS; random ids shortened (`--json` has them whole). */
export function objectsTable(objects: readonly LockObject[], c: Colors): string {
  const head = ['NAME', 'KIND', 'STATE', 'HOLDERS', 'TTL', 'WAITERS'].map((title) => c.bold(title));
  const shorten = idShortener(shownIds(objects));
  const table = renderTable(
    head,
    objects.map((object) => [
      c.bold(object.name),
      c.cyan(kindOf(object)),
      stateOf(object, c, shorten),
      holdersOf(object, c, shorten),
      ttlOf(object, c),
      waitersOf(object, c, shorten),
    ]),
  );
  return objects.some(mayBeFair) ? `${table}\n\n${c.dim(MAY_BE_FAIR_NOTE)}` : table;
}
