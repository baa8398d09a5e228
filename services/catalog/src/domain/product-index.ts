/**
 * The in-memory summary of catalog_products that /products, /products/{id} and the count
 * routes answer from. The original regrouped the whole table in SQL on every request; the
 * data only changes when the converter runs, so it is grouped once per data version here.
 */
import { getOrInsert } from "@platform/core";
import type { Listing, ListingFilter } from "./listings.js";
import { isEmptyFilter, matcher } from "./listings.js";
import type { Instant } from "./time.js";
import { compareText, fold } from "./values.js";

export interface ProductSummary {
  product: number;
  /** Index of the representative listing (latest observed_at, then updated_at, then lowest id). */
  rep: number;
  sourcesCount: number;
  observedAtLatest: Instant | null;
  priceFrom: number | null;
  parsers: string[];
}

export const SORTS = ["observed_at_desc", "observed_at_asc", "price_asc", "price_desc", "rating_desc"] as const;
export type ProductSort = (typeof SORTS)[number];

/** Region key of a listing without a (known) settlement: the count routes' INNER JOIN drops it. */
const NO_SETTLEMENT = "\u0000";

function nullsLast(a: number | null, b: number | null, descending: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return descending ? b - a : a - b;
}

/** True when listing a should represent its product rather than b. */
function outranks(a: Listing, b: Listing): boolean {
  const byObserved = nullsLast(a.observedAt, b.observedAt, true);
  if (byObserved !== 0) return byObserved < 0;
  const byUpdated = nullsLast(a.updatedAt, b.updatedAt, true);
  if (byUpdated !== 0) return byUpdated < 0;
  return a.id < b.id;
}

export class ProductIndex {
  readonly productIds: string[] = [];
  private readonly starts: number[] = [];
  private readonly byCanonical = new Map<string, number>();
  /** store key -> region key -> sorted product numbers. */
  private readonly pairs = new Map<string, Map<string, Int32Array>>();
  private full: ProductSummary[] | undefined;
  private readonly sorted = new Map<string, ProductSummary[]>();
  private readonly recent = new Map<string, ProductSummary[]>();
  /** Count answers per normalised request: the data cannot change under one index. */
  private readonly counts = new Map<string, { required: number; count: number }>();

  constructor(
    /** Listings grouped by canonical id (equal ids adjacent). */
    readonly listings: readonly Listing[],
    regionOfSettlement: ReadonlyMap<number, string>,
  ) {
    const pairSets = new Map<string, Map<string, Set<number>>>();
    listings.forEach((l, i) => {
      if (i === 0 || l.canonicalId !== listings[i - 1]?.canonicalId) {
        this.byCanonical.set(l.canonicalId, this.productIds.length);
        this.productIds.push(l.canonicalId);
        this.starts.push(i);
      }
      const product = this.productIds.length - 1;
      const region = (l.settlementId === null ? undefined : regionOfSettlement.get(l.settlementId)) ?? NO_SETTLEMENT;
      const byRegion = getOrInsert(pairSets, l.storeKey, () => new Map<string, Set<number>>());
      getOrInsert(byRegion, region, () => new Set<number>()).add(product);
    });
    this.starts.push(listings.length);
    for (const [store, byRegion] of pairSets) {
      const converted = new Map<string, Int32Array>();
      for (const [region, set] of byRegion) converted.set(region, Int32Array.from(set));
      this.pairs.set(store, converted);
    }
  }

  get productCount(): number {
    return this.productIds.length;
  }

  productNumber(canonicalId: string): number | undefined {
    return this.byCanonical.get(canonicalId);
  }

  /** Summary of one product over its listings that pass `keep` (undefined when none does). */
  summarise(product: number, keep?: (l: Listing) => boolean): ProductSummary | undefined {
    const start = this.starts[product] ?? 0;
    const end = this.starts[product + 1] ?? start;
    let rep = -1;
    let sourcesCount = 0;
    let observedAtLatest: Instant | null = null;
    let priceFrom: number | null = null;
    const parsers = new Map<string, string>();
    for (let i = start; i < end; i++) {
      const l = this.listings[i] as Listing;
      if (keep && !keep(l)) continue;
      sourcesCount++;
      if (rep === -1 || outranks(l, this.listings[rep] as Listing)) rep = i;
      if (l.observedAt !== null && (observedAtLatest === null || l.observedAt > observedAtLatest)) observedAtLatest = l.observedAt;
      if (l.price !== null && (priceFrom === null || l.price < priceFrom)) priceFrom = l.price;
      if (!parsers.has(l.storeKey)) parsers.set(l.storeKey, l.parserName);
    }
    if (rep === -1) return undefined;
    return { product, rep, sourcesCount, observedAtLatest, priceFrom, parsers: [...parsers.values()].sort(compareText) };
  }

  /** Products matching the filter, in the requested order. Results are memoised per index. */
  query(filter: ListingFilter, sort: ProductSort): ProductSummary[] {
    if (isEmptyFilter(filter)) {
      return getOrInsert(this.sorted, sort, () => this.order(this.all(), sort));
    }
    const key = `${sort}\u0000${JSON.stringify(filter)}`;
    let result = this.recent.get(key);
    if (result) {
      this.recent.delete(key);
    } else {
      const keep = matcher(filter);
      const matching: ProductSummary[] = [];
      for (let p = 0; p < this.productIds.length; p++) {
        const s = this.summarise(p, keep);
        if (s) matching.push(s);
      }
      result = this.order(matching, sort);
      if (this.recent.size >= 64) this.recent.delete(this.recent.keys().next().value as string);
    }
    this.recent.set(key, result);
    return result;
  }

  private all(): ProductSummary[] {
    if (!this.full) {
      this.full = this.productIds.map((_, p) => this.summarise(p) as ProductSummary);
    }
    return this.full;
  }

  private order(items: ProductSummary[], sort: ProductSort): ProductSummary[] {
    const ids = this.productIds;
    const byId = (a: ProductSummary, b: ProductSummary) => compareText(ids[a.product] as string, ids[b.product] as string);
    const rating = (s: ProductSummary) => (this.listings[s.rep] as Listing).rating;
    const compare: Record<ProductSort, (a: ProductSummary, b: ProductSummary) => number> = {
      observed_at_desc: (a, b) => nullsLast(a.observedAtLatest, b.observedAtLatest, true) || byId(a, b),
      observed_at_asc: (a, b) => nullsLast(a.observedAtLatest, b.observedAtLatest, false) || byId(a, b),
      price_asc: (a, b) => nullsLast(a.priceFrom, b.priceFrom, false) || byId(a, b),
      price_desc: (a, b) => nullsLast(a.priceFrom, b.priceFrom, true) || byId(a, b),
      rating_desc: (a, b) => nullsLast(rating(a), rating(b), true) || byId(a, b),
    };
    return [...items].sort(compare[sort]);
  }

  /** Sets of products per (store, region) pair, for stores in `stores` (all when empty) and regions passing `region`. */
  private setsFor(stores: readonly string[], region: (key: string) => boolean): Int32Array[] {
    const out: Int32Array[] = [];
    for (const store of stores.length > 0 ? stores : this.pairs.keys()) {
      for (const [key, set] of this.pairs.get(store) ?? []) if (region(key)) out.push(set);
    }
    return out;
  }

  private regionKeys(): string[] {
    const keys = new Set<string>();
    for (const byRegion of this.pairs.values()) for (const key of byRegion.keys()) keys.add(key);
    keys.delete(NO_SETTLEMENT);
    keys.delete("");
    return [...keys];
  }

  /** Distinct products sold by any of `stores` in any of `regions`. Tokens are already normalised. */
  countProducts(stores: readonly string[], regions: readonly string[]): number {
    if (stores.length === 0 && regions.length === 0) return this.productCount;
    return this.remember("any", stores, regions, () => {
      const wanted = new Set(regions);
      const sets = this.setsFor(stores, (key) => regions.length === 0 || wanted.has(key));
      return { required: 1, count: countCommon([sets], 1, this.productCount) };
    }).count;
  }

  private remember(
    kind: string,
    stores: readonly string[],
    regions: readonly string[],
    compute: () => { required: number; count: number },
  ): { required: number; count: number } {
    const key = JSON.stringify([kind, stores, regions]);
    const known = this.counts.get(key);
    if (known) return known;
    const result = compute();
    if (this.counts.size >= 1024) this.counts.clear();
    this.counts.set(key, result);
    return result;
  }

  /** scope=stores of /products/common/count. */
  commonAcrossStores(stores: readonly string[], regions: readonly string[]): { required: number; count: number } {
    return this.remember("stores", stores, regions, () => this.computeAcrossStores(stores, regions));
  }

  private computeAcrossStores(stores: readonly string[], regions: readonly string[]): { required: number; count: number } {
    const wanted = new Set(regions);
    const inRegion = (key: string) => regions.length === 0 || wanted.has(key);
    const groups = (stores.length > 0 ? stores : [...this.pairs.keys()]).map((store) => this.setsFor([store], inRegion));
    const required = stores.length > 0 ? stores.length : groups.filter((g) => g.some((set) => set.length > 0)).length;
    return { required, count: countCommon(groups, required, this.productCount) };
  }

  /** scope=regions of /products/common/count. */
  commonAcrossRegions(stores: readonly string[], regions: readonly string[]): { required: number; count: number } {
    return this.remember("regions", stores, regions, () => this.computeAcrossRegions(stores, regions));
  }

  private computeAcrossRegions(stores: readonly string[], regions: readonly string[]): { required: number; count: number } {
    const groups = (regions.length > 0 ? regions : this.regionKeys()).map((region) => this.setsFor(stores, (key) => key === region));
    const required = regions.length > 0 ? regions.length : groups.filter((g) => g.some((set) => set.length > 0)).length;
    return { required, count: countCommon(groups, required, this.productCount) };
  }
}

/** Number of products present in exactly `required` groups (each group a union of sets); 0 when required is 0. */
function countCommon(groups: Int32Array[][], required: number, size: number): number {
  if (required <= 0 || groups.length < required) return 0;
  const hits = new Uint16Array(size);
  const seenIn = new Int32Array(size).fill(-1);
  groups.forEach((sets, g) => {
    for (const set of sets) {
      for (const p of set) {
        if (seenIn[p] !== g) {
          seenIn[p] = g;
          hits[p] = (hits[p] as number) + 1;
        }
      }
    }
  });
  let count = 0;
  for (const h of hits) if (h === required) count++;
  return count;
}

export function regionKey(region: unknown, regionNormalized: unknown): string {
  const value = regionNormalized ?? region ?? "";
  return fold(String(value));
}
