import type { Connection } from '../connection/Connection.js';
import { candidateNames } from './familyKeys.js';
import { channelsToCount, classify, type Recognition } from './classify.js';
import { countSubscribers } from './countSubscribers.js';
import { globToRegExp, isGlob } from './glob.js';
import type { LockObject, ObjectKind } from './LockObject.js';
import { LOCK_SHAPED, lockShaped } from './lockShaped.js';
import { loadScripts } from './ReadScript.js';
import { LAYOUT_SCRIPT, readLayout, type RawLayout } from './readLayout.js';

export interface ListOptions {
  /** Only these kinds; also settles what an ambiguous integer string is (see `classify`). @default every kind */
  readonly kinds?: ReadonlySet<ObjectKind> | undefined;
}

/** Script calls in flight at once (ioredis pipelines those sent in the same tick). */
const CONCURRENCY = 256;

/**
 * Every lock-family object whose name matches the Redis glob `pattern`, sorted by name. A pattern without
 * glob characters is looked up directly; otherwise one SCAN pass per master (never KEYS) finds the keys
 * that contain a match, since every key of an object contains its name.
 */
export async function listObjects(connection: Connection, pattern: string, options: ListOptions = {}): Promise<LockObject[]> {
  await loadScripts(connection, [LAYOUT_SCRIPT, LOCK_SHAPED]);
  const names = isGlob(pattern) ? await scanNames(connection, pattern) : [pattern];
  const recognised = await recognise(connection, names, options.kinds);
  const withMainKey = new Set(recognised.filter(({ layout }) => layout.mainType !== 'none').map(({ layout }) => layout.name));
  return recognised
    .flatMap(({ layout, recognition }) => (recognition.found === 'object' && !shadowed(layout, withMainKey) ? [recognition.object] : []))
    .filter((object) => matchesKinds(object, options.kinds))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What one exact name is: an object, a key of another kind, or nothing. */
export async function inspectName(connection: Connection, name: string, kinds?: ReadonlySet<ObjectKind>): Promise<Recognition> {
  await loadScripts(connection, [LAYOUT_SCRIPT]);
  const [inspected] = await recognise(connection, [name], kinds);
  return inspected?.recognition ?? { found: 'nothing' };
}

async function recognise(
  connection: Connection,
  names: readonly string[],
  kinds: ReadonlySet<ObjectKind> | undefined,
): Promise<{ layout: RawLayout; recognition: Recognition }[]> {
  const layouts = await mapConcurrently(names, CONCURRENCY, (name) => readLayout(connection.redis, name));
  const subscribers = await countSubscribers(connection, layouts.flatMap(channelsToCount));
  return layouts.map((layout) => ({ layout, recognition: classify(layout, subscribers, kinds) }));
}

/** `items.map(work)` with at most `limit` calls pending at a time; results in input order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The names SCAN finds for `pattern`. A name known only from its own key is kept when that key is lock-shaped
 * (most keys of other applications are not); one that companion keys point at is always inspected.
 */
async function scanNames(connection: Connection, pattern: string): Promise<string[]> {
  const match = pattern === '*' ? '*' : `*${pattern}*`;
  const wanted = globToRegExp(pattern);
  const named = new Set<string>();
  const ownKeyOnly = new Set<string>();
  for (const master of connection.masters()) {
    let cursor = '0';
    do {
      const [next, keys] = await master.scan(cursor, 'MATCH', match, 'COUNT', 1_000);
      cursor = next;
      for (const key of keys) {
        for (const name of candidateNames(key)) {
          if (!wanted.test(name)) continue;
          if (name === key) ownKeyOnly.add(name);
          else named.add(name);
        }
      }
    } while (cursor !== '0');
  }
  const unnamed = [...ownKeyOnly].filter((name) => !named.has(name));
  const shaped = await lockShaped(connection, unnamed);
  return [...named, ...unnamed.filter((_, index) => shaped[index] === true)];
}

/** Whether `--kind` lets the object through; an ambiguous string passes for either of its kinds. */
export function matchesKinds(object: LockObject, kinds: ReadonlySet<ObjectKind> | undefined): boolean {
  if (kinds === undefined) return true;
  if (object.kind === 'semaphoreOrLatch') return ['semaphore', 'leasedSemaphore', 'latch', 'semaphoreOrLatch'].some((kind) => kinds.has(kind as ObjectKind));
  return kinds.has(object.kind);
}

/**
 * Redisson gives `orders` and `{orders}` the same companion keys. When only `{orders}` exists, the companions
 * also read as a keyless `orders`, which is dropped.
 */
function shadowed(layout: RawLayout, withMainKey: ReadonlySet<string>): boolean {
  return layout.mainType === 'none' && withMainKey.has(`{${layout.name}}`);
}
