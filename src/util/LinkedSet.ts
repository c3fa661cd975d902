/** A member of a `LinkedSet`: remove it with `set.delete(node)`. */
export interface LinkedNode<T> {
  readonly value: T;
  prev: LinkedNode<T> | undefined;
  next: LinkedNode<T> | undefined;
  removed: boolean;
}

/**
 * An insertion-ordered set for members that come and go many times a second (leases, pending commands).
 * Adding allocates one node and removing allocates nothing, where a `Set` reallocates its table as it
 * grows and shrinks.
 */
export class LinkedSet<T> implements Iterable<T> {
  #head: LinkedNode<T> | undefined;
  #tail: LinkedNode<T> | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(value: T): LinkedNode<T> {
    const node: LinkedNode<T> = { value, prev: this.#tail, next: undefined, removed: false };
    if (this.#tail === undefined) this.#head = node;
    else this.#tail.next = node;
    this.#tail = node;
    this.#size++;
    return node;
  }

  /** Unlinks the node completely: a removed node that still pointed at its neighbours would keep them alive. */
  delete(node: LinkedNode<T>): void {
    if (node.removed) return;
    node.removed = true;
    if (node.prev === undefined) this.#head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.#tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = undefined;
    node.next = undefined;
    this.#size--;
  }

  clear(): void {
    for (let node = this.#head; node !== undefined;) {
      const next: LinkedNode<T> | undefined = node.next;
      node.removed = true;
      node.prev = undefined;
      node.next = undefined;
      node = next;
    }
    this.#head = undefined;
    this.#tail = undefined;
    this.#size = 0;
  }

  /** Iterates the members present when iteration started, skipping those removed meanwhile. */
  *[Symbol.iterator](): Iterator<T> {
    const snapshot: LinkedNode<T>[] = [];
    for (let node = this.#head; node !== undefined; node = node.next) snapshot.push(node);
    for (const node of snapshot) if (!node.removed) yield node.value;
  }
}
