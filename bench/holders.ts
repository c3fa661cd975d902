/**
 * Who holds each key right now, as the workers report it: a worker enters after its acquire resolved and
 * leaves before it asks to release. Two holders of one key at once is an overlap. Every worker of a run
 * lives in this process, so an in-process count is exact (no clocks are compared).
 */
export class HolderBook {
  readonly #holders = new Map<string, number>();
  #overlaps = 0;

  get overlaps(): number {
    return this.#overlaps;
  }

  enter(key: string): void {
    const current = this.#holders.get(key) ?? 0;
    if (current > 0) this.#overlaps++;
    this.#holders.set(key, current + 1);
  }

  leave(key: string): void {
    const current = this.#holders.get(key) ?? 0;
    if (current <= 1) this.#holders.delete(key);
    else this.#holders.set(key, current - 1);
  }
}
