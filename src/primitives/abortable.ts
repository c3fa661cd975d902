import { Observable } from 'rxjs';

/**
 * Errors the stream with `signal.reason` when the signal aborts, which tears the source down. An
 * already aborted signal errors at once without subscribing to the source (nothing is sent).
 */
export function abortable<T>(source: Observable<T>, signal: AbortSignal | undefined): Observable<T> {
  if (signal === undefined) return source;
  return new Observable<T>((subscriber) => {
    if (signal.aborted) {
      subscriber.error(signal.reason);
      return;
    }
    const onAbort = (): void => subscriber.error(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const subscription = source.subscribe(subscriber);
    return () => {
      signal.removeEventListener('abort', onAbort);
      subscription.unsubscribe();
    };
  });
}
