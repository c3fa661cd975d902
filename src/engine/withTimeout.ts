import { Observable, type SchedulerLike } from 'rxjs';
import { StoreError } from '../store/StoreError.js';

/**
 * Fails a store command that has not answered within `ms` with a `timeout` whose outcome is unknown:
 * the command may still run, so the caller must compensate.
 */
export function withTimeout<T>(source: Observable<T>, ms: number, scheduler: SchedulerLike): Observable<T> {
  return new Observable<T>((subscriber) => {
    const timer = scheduler.schedule(() => {
      subscriber.error(new StoreError('timeout', `no reply within ${ms} ms`, true));
    }, ms);
    const subscription = source.subscribe({
      next: (value) => {
        timer.unsubscribe();
        subscriber.next(value);
      },
      error: (error: unknown) => {
        timer.unsubscribe();
        subscriber.error(error);
      },
      complete: () => subscriber.complete(),
    });
    return () => {
      timer.unsubscribe();
      subscription.unsubscribe();
    };
  });
}
