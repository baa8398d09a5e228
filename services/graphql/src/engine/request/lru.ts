/**
 * The engine's caches (documents, validation results, variable usages, compiled statements):
 * least recently used entries go first, and each cache holds at most `maxWeight` (the size of
 * its keys and values, in characters of the texts they stand for). An entry heavier than
 * `maxEntryWeight` is not kept at all: the operations applications repeat are small, and one
 * huge request (a 70,000-value list, thousands of aliases) must neither stay in memory nor push
 * every other entry out.
 */
export class Lru<V> {
  private readonly map = new Map<string, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
    private readonly maxEntryWeight: number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key`; `weight` is its size beyond the key's own length. Returns whether it was kept. */
  set(key: string, value: V, weight = 0): boolean {
    const total = key.length + weight;
    this.delete(key);
    if (total > this.maxEntryWeight) return false;
    this.map.set(key, { value, weight: total });
    this.total += total;
    while (this.map.size > this.maxEntries || this.total > this.maxWeight) this.delete(this.map.keys().next().value as string);
    return true;
  }

  private delete(key: string): void {
    const entry = this.map.get(key);
    if (!entry) return;
    this.map.delete(key);
    this.total -= entry.weight;
  }

  get size(): number {
    return this.map.size;
  }

  /** The weight held: the sum of the entries' keys and values. */
  get weight(): number {
    return this.total;
  }
}
