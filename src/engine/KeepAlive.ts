/**
 * Keeps the process alive while the client holds or waits for something, with one timer handle, when its
 * other timers do not (see `backgroundScheduler`): a program whose locks are all released exits by itself
 * (the handle stays, unreferenced, until `stop`).
 * With a scheduler of the user's it does nothing: their timers are theirs.
 */
export class KeepAlive {
  readonly #enabled: boolean;
  #count = 0;
  #handle: NodeJS.Timeout | undefined;

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** Something started that must keep the process alive until its matching `release`. */
  hold(): void {
    // One handle for the client's life, referenced only while something is held: an uncontended lock holds
    // and releases at every acquire, and a timer created and cleared each time is work for Node's timer lists.
    if (++this.#count === 1 && this.#enabled) (this.#handle ??= setInterval(noop, 1 << 30)).ref();
  }

  release(): void {
    if (this.#count === 0) return;
    if (--this.#count === 0) this.#handle?.unref();
  }

  /** Client close: nothing is kept alive any more. */
  stop(): void {
    this.#count = 0;
    if (this.#handle !== undefined) clearInterval(this.#handle);
    this.#handle = undefined;
  }
}

function noop(): void {
  // The handle's only purpose is to exist.
}
