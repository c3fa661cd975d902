/** Counts work in flight; `idle()` resolves once none is (at once when none is now). */
export class InFlight {
  #count = 0;
  #waiting: (() => void)[] = [];

  get count(): number {
    return this.#count;
  }

  begin(): void {
    this.#count++;
  }

  end(): void {
    if (this.#count === 0 || --this.#count > 0 || this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  idle(): Promise<void> {
    return this.#count === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.#waiting.push(resolve));
  }
}
