import { filter, type Observable, type Subscription } from 'rxjs';
import type { Lease, LockClient, LockEvent } from '../../src/index.js';
import type { LockWorker } from './Contender.js';

/** A lock method in the shape of `lock$`: a cold Observable that emits one Lease and releases on unsubscribe. */
export type LockObservable = (client: LockClient, name: string) => Observable<Lease>;

/**
 * A worker on an Observable lock, used as a user of `lock$` would: subscribe, take the lease, unsubscribe to
 * release. `release()` resolves when the client reports the release on `events$` (`released`, or
 * `release-failed`, which rejects), so that a cycle includes the release's round trip as with the others.
 */
export function observableLockWorker(client: LockClient, lock$: LockObservable, key: string): LockWorker {
  const settled = new Map<string, (error?: Error) => void>();
  const events: Subscription = client.events$
    .pipe(filter((event): event is LockEvent & { owner: string } => event.type === 'released' || event.type === 'release-failed'))
    .subscribe((event) => {
      const done = settled.get(event.owner);
      settled.delete(event.owner);
      done?.(event.type === 'release-failed' ? event.error : undefined);
    });
  let subscription: Subscription | undefined;
  let owner: string | undefined;
  return {
    acquire: () =>
      new Promise<boolean>((resolve, reject) => {
        subscription = lock$(client, key).subscribe({
          next: (lease) => {
            owner = lease.owner;
            resolve(true);
          },
          error: (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
        });
      }),
    release: () =>
      new Promise<void>((resolve, reject) => {
        const held = owner;
        owner = undefined;
        if (held !== undefined) settled.set(held, (error) => (error === undefined ? resolve() : reject(error)));
        subscription?.unsubscribe();
        subscription = undefined;
        if (held === undefined) resolve();
      }),
    close: async () => {
      subscription?.unsubscribe();
      await client.close();
      events.unsubscribe();
    },
  };
}
