/**
 * A least-recently-used map bounded in entries and in bytes: every entry declares what it weighs,
 * and the least recently used entries are dropped until both bounds hold again. An entry heavier
 * than the whole byte budget is never stored. It serves the document cache, which charges an entry
 * more after it is stored (graphql-jit's compiled operations); the response cache uses `lru-cache`.
 * Moving this onto `lru-cache` (maxSize + a re-set to charge) is the next step to one LRU.
 */
export interface LruBounds {
  /** Entries kept at most. */
  maxEntries: number;
  /** Sum of the entries' declared weights kept at most. */
  maxBytes: number;
}

interface Slot<V> {
  value: V;
  bytes: number;
}

export class BoundedLru<K, V> {
  readonly #slots = new Map<K, Slot<V>>();
  readonly #bounds: LruBounds;
  #bytes = 0;

  constructor(bounds: LruBounds) {
    this.#bounds = bounds;
  }

  get size(): number {
    return this.#slots.size;
  }

  /** Sum of the declared weights of the entries held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value, marked as the most recently used. */
  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    // Map keeps insertion order: re-inserting moves the entry to the young end.
    this.#slots.delete(key);
    this.#slots.set(key, slot);
    return slot.value;
  }

  /** The value, without marking it as used. */
  peek(key: K): V | undefined {
    return this.#slots.get(key)?.value;
  }

  /** Stores the value as the most recently used; false (and nothing stored) when it alone is over the byte budget. */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > this.#bounds.maxBytes) return false;
    this.#slots.set(key, { value, bytes });
    this.#bytes += bytes;
    this.#evict();
    return true;
  }

  /** Adds to an entry's weight (work derived from it later); the entry itself may be dropped. */
  charge(key: K, bytes: number): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    slot.bytes += bytes;
    this.#bytes += bytes;
    if (slot.bytes > this.#bounds.maxBytes) this.delete(key);
    this.#evict();
  }

  delete(key: K): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    this.#slots.delete(key);
    this.#bytes -= slot.bytes;
  }

  /** Drops the least recently used entries until both bounds hold. */
  #evict(): void {
    const { maxEntries, maxBytes } = this.#bounds;
    for (const [key, slot] of this.#slots) {
      if (this.#slots.size <= maxEntries && this.#bytes <= maxBytes) return;
      this.#slots.delete(key);
      this.#bytes -= slot.bytes;
    }
  }
}
