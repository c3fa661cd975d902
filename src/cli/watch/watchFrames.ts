import { catchError, defer, exhaustMap, map, of, timer, type Observable, type SchedulerLike } from 'rxjs';
import type { LockObject } from '../inspect/LockObject.js';
import type { WatchFrame } from './WatchFrame.js';
import type { WatchState } from './WatchState.js';

/**
 * Lists every `intervalMs` (the first at once) and folds each listing into a frame. A refresh that is
 * still running when the next is due is not overlapped; a failed one yields a frame with the error, and
 * the next refresh tries again.
 */
export function watchFrames(
  list: () => Promise<readonly LockObject[]>,
  state: WatchState,
  intervalMs: number,
  scheduler: SchedulerLike,
): Observable<WatchFrame> {
  return timer(0, intervalMs, scheduler).pipe(
    exhaustMap(() =>
      defer(list).pipe(
        map((objects) => state.update(objects, scheduler.now())),
        catchError((error: unknown) => of(state.failed(error))),
      ),
    ),
  );
}
