/** Whether the process runs with --expose-gc, without which heap figures are not measured. */
export function canCollect(): boolean {
  return typeof globalThis.gc === 'function';
}

/** Full collections per measurement: V8 flushes the bytecode of functions unused for several collections, so one would leave code of earlier scenarios in the figure. */
const COLLECTIONS = 8;

/** Heap in use after full garbage collections; undefined without --expose-gc. */
export async function heapAfterGc(): Promise<number | undefined> {
  const collect = globalThis.gc;
  if (typeof collect !== 'function') return undefined;
  for (let i = 0; i < COLLECTIONS; i++) {
    // Let finished work drop its last references (timers, promise jobs) between collections.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  return process.memoryUsage().heapUsed;
}
