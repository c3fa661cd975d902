import type { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Lease } from '../../engine/Lease.js';
import { readLock$, writeLock$, type ReadWriteLockOptions } from './readWriteLock.js';

/** The read-write lock (`readLock$`, `writeLock$`) part of the client. */
export interface ReadWriteLockMethods {
  /**
   * The read side of a read-write lock (Redisson's RReadWriteLock): many readers hold it together while no
   * writer does. Emits one `Lease` when held, releases on unsubscribe.
   *
   * @example
   * const catalog = await withLease(client.readLock$('catalog'), () => loadCatalog());
   */
  readLock$(name: string, options?: ReadWriteLockOptions): Observable<Lease>;
  /**
   * The write side: one writer, and no readers but the writer itself (it may take the read lock too, and
   * keep it after releasing the write lock). Emits one `Lease` when held, releases on unsubscribe.
   *
   * @example
   * await withLease(client.writeLock$('catalog', { waitMs: 5_000 }), () => rebuildCatalog());
   */
  writeLock$(name: string, options?: ReadWriteLockOptions): Observable<Lease>;
}

export function readWriteLockMethods(core: ClientCore): ReadWriteLockMethods {
  return {
    readLock$: (name, options) => readLock$(core, name, options),
    writeLock$: (name, options) => writeLock$(core, name, options),
  };
}
