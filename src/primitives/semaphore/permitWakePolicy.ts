import { Observable } from 'rxjs';
import type { ClientCore } from '../../engine/ClientCore.js';
import type { Wake, WakePolicy } from '../../engine/WakeHub.js';

/** Per client and channel: how many local acquisitions that need more than one permit are still waiting. */
const byClient = new WeakMap<ClientCore, Map<string, number>>();

function channels(core: ClientCore): Map<string, number> {
  let map = byClient.get(core);
  if (map === undefined) byClient.set(core, (map = new Map<string, number>()));
  return map;
}

const NONE: Wake = { wake: 'none' };
const ALL: Wake = { wake: 'all' };

/**
 * A `redisson_sc` message is the new permit count. While every local waiter needs one permit it wakes up to
 * that many of them, in line order. While one needs more, it wakes them all: woken in line order, a waiter
 * needing more than the count would use up the wake (its attempt is refused) of one behind it that needs fewer,
 * which would then sleep until its fallback re-check although permits are free.
 */
export function permitWakePolicy(core: ClientCore, channel: string): WakePolicy {
  return (message) => {
    const count = Number(message);
    if (!Number.isSafeInteger(count) || count <= 0) return NONE;
    return (byClient.get(core)?.get(channel) ?? 0) > 0 ? ALL : { wake: 'count', count };
  };
}

/** `held$`, counted as a waiter that needs `permits` from its subscription until its grant (or its end) when it needs more than one. */
export function waitingForPermits<T>(core: ClientCore, channel: string, permits: number, held$: Observable<T>): Observable<T> {
  if (permits <= 1) return held$;
  return new Observable<T>((subscriber) => {
    const map = channels(core);
    map.set(channel, (map.get(channel) ?? 0) + 1);
    let waiting = true;
    const done = (): void => {
      if (!waiting) return;
      waiting = false;
      const left = (map.get(channel) ?? 1) - 1;
      if (left > 0) map.set(channel, left);
      else map.delete(channel);
    };
    const subscription = held$.subscribe({
      next: (value) => {
        done();
        subscriber.next(value);
      },
      error: (error: unknown) => {
        done();
        subscriber.error(error);
      },
      complete: () => {
        done();
        subscriber.complete();
      },
    });
    return () => {
      done();
      subscription.unsubscribe();
    };
  });
}
