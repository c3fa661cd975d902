/** A promise the test opens: handlers wait on it to hold their lock as long as the test needs. */
export class Gate {
  #open!: () => void;
  readonly #opened: Promise<void>;
  entered = 0;

  constructor() {
    this.#opened = new Promise((resolve) => (this.#open = resolve));
  }

  /** Counts the caller in and resolves once the gate opens. */
  pass(): Promise<void> {
    this.entered++;
    return this.#opened;
  }

  open(): void {
    this.#open();
  }
}
