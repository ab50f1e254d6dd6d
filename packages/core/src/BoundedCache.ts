/**
 * The one bounded in-memory cache: a `Map` that never holds more than `capacity` entries.
 *
 * Eviction rule: when a new key arrives at a full cache, the cache starts over (it is emptied,
 * then the key is stored). A hit is one `Map.get` and nothing else, so a cache costs the hot path
 * what a bare `Map` does; evicting the oldest key, or an LRU, costs more on every miss or hit. Only
 * the LRU keeps a hot entry longer under a flood of new keys, and starting over costs each hot entry
 * one recomputation per `capacity` new keys, so the cheapest rule is the one kept (the measurements
 * are in docs/decisions.md, "How are the caches bounded?").
 *
 * Effect's `Cache` does not fit these uses: its `get` is an effect, each hit allocates an `Option`
 * and records the access for its LRU and statistics, and each lookup is an effect with its own
 * `Deferred`. The caches here sit on synchronous paths (a kept page is answered in the same step, no
 * store read) and memoise pure functions or plain reads, which need none of that.
 *
 * What makes an entry wrong is each use's business: every use states, where it is declared, what
 * invalidates its entries and why keeping one cannot be wrong, and calls `delete` or `clear` itself
 * when something outside can change an entry.
 *
 * @since 1.0.0
 */

/**
 * A `Map` of at most `capacity` entries that starts over when a new key arrives while full.
 *
 * @category models
 */
export interface BoundedCache<K, V> {
  /** The most entries the cache holds. */
  readonly capacity: number
  /** How many entries it holds now (never more than `capacity`). */
  readonly size: number
  /** The sum of its entries' weights (never more than the budget, for a cache made with one; else 0). */
  readonly weight: number
  /** The value stored under `key`, or `undefined` (never stored, dropped, or lost when the cache started over). */
  get(key: K): V | undefined
  /**
   * Stores `value` under `key`; a new key at a full cache, or a value that would take the weight past
   * the budget, empties the cache first (a value heavier than the whole budget is not stored).
   */
  set(key: K, value: V): void
  /** Drops `key`'s entry, if any (an invalidation). */
  delete(key: K): void
  /** Drops every entry (an invalidation of all of them). */
  clear(): void
}

/** A budget on a cache's entries by weight (bytes, say), besides their number. */
export interface WeightBudget<V> {
  /** The most the entries may weigh together. */
  readonly budget: number
  /** An entry's weight (called when it is stored and when it goes: the same value, the same weight). */
  readonly weigh: (value: V) => number
}

class MapCache<K, V> implements BoundedCache<K, V> {
  private readonly entries = new Map<K, V>()
  weight = 0
  constructor(readonly capacity: number, private readonly budget: WeightBudget<V> | undefined) {}
  get size(): number {
    return this.entries.size
  }
  get(key: K): V | undefined {
    return this.entries.get(key)
  }
  set(key: K, value: V): void {
    const entries = this.entries
    if (this.budget !== undefined) return this.setWeighed(key, value, this.budget)
    // Checked before storing, so the Map never grows past `capacity` (one more would double its table).
    if (entries.size >= this.capacity && !entries.has(key)) entries.clear()
    entries.set(key, value)
  }
  private setWeighed(key: K, value: V, { budget, weigh }: WeightBudget<V>): void {
    const entries = this.entries
    const weight = weigh(value)
    if (entries.has(key)) {
      this.weight -= weigh(entries.get(key) as V)
      entries.delete(key)
    }
    if (weight > budget) return
    if (entries.size >= this.capacity || this.weight + weight > budget) this.clear()
    entries.set(key, value)
    this.weight += weight
  }
  delete(key: K): void {
    if (this.budget !== undefined && this.entries.has(key)) this.weight -= this.budget.weigh(this.entries.get(key) as V)
    this.entries.delete(key)
  }
  clear(): void {
    this.entries.clear()
    this.weight = 0
  }
}

/**
 * An empty cache of at most `capacity` entries (a positive integer) and, given a `weight` budget, at
 * most that weight in all.
 *
 * @category constructors
 */
export const make = <K, V>(capacity: number, weight?: WeightBudget<V>): BoundedCache<K, V> => {
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new RangeError(`cache capacity must be a positive integer, got ${capacity}`)
  }
  if (weight !== undefined && !(weight.budget > 0)) throw new RangeError(`cache weight budget must be positive, got ${weight.budget}`)
  return new MapCache<K, V>(capacity, weight)
}
