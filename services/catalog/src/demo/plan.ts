/**
 * The demo catalog decided in memory before anything is written: products, their source listings
 * (one per product and store) and every listing's snapshot history. Snapshots live in typed arrays
 * (millions of them) and are ordered by the scrape run that first saw them, so row ids grow with
 * time the way the converter's do.
 *
 * Time model: each store is scraped once per "run" (daily for a year, more often when a listing
 * needs more distinct snapshots than there are days). A snapshot covers the runs from the one that
 * first saw its content to the last one that saw it unchanged; the next snapshot starts at the
 * following run, which leaves the gaps the converter leaves.
 */
import { PriceWalk } from "./prices.js";
import { mix, type Random } from "./random.js";
import { MICROS_PER_DAY } from "./time.js";
import { KINDS, type Store } from "./words.js";

export interface PlanOptions {
  products: number;
  stores: readonly Store[];
  snapshots: number;
  endMicros: number;
}

export interface ProductPlan {
  id: string;
  kind: number;
  brand: number;
  variant: number;
  size: number;
  /** Store indexes selling it. */
  stores: number[];
}

/** Which snapshots are "older data" with NULL valid_from_at/valid_to_at: those last seen before this share of the year. */
const POINT_SHARE = 0.4;
const SPAN_DAYS = 365;

export class CatalogPlan {
  readonly products: ProductPlan[] = [];
  readonly runs: number;
  readonly runMicros: number;
  readonly startMicros: number;
  readonly pointBeforeRun: number;

  // Source listings, indexed 0..sourceCount-1 in product order.
  readonly sourceCount: number;
  readonly sourceProduct: Int32Array;
  readonly sourceStore: Uint8Array;
  readonly sourceFirstRun: Int32Array;
  readonly sourceLastRun: Int32Array;
  readonly sourceBaseCents: Int32Array;
  /** The snapshots of listing i are at positions sourceOffset[i] .. sourceOffset[i+1]-1 of the snap* arrays. */
  readonly sourceOffset: Int32Array;

  // Snapshots in per-source order; `order` lists them in insertion (time) order.
  readonly snapSource: Int32Array;
  readonly snapFirstRun: Int32Array;
  readonly snapLastRun: Int32Array;
  readonly snapPrice: Int32Array;
  readonly snapDiscount: Int32Array;
  readonly snapLoyal: Int32Array;
  readonly snapAvailable: Int32Array;
  readonly order: Int32Array;

  constructor(
    private readonly rng: Random,
    readonly options: PlanOptions,
  ) {
    const storeCount = options.stores.length;
    for (let p = 0; p < options.products; p++) this.products.push(this.product(storeCount));
    this.sourceCount = this.products.reduce((sum, product) => sum + product.stores.length, 0);

    // Enough runs that the busiest listings fit; a daily scrape otherwise.
    const perSource = options.snapshots / Math.max(1, this.sourceCount);
    this.runs = Math.max(SPAN_DAYS, Math.ceil(perSource * 4));
    this.runMicros = Math.floor((SPAN_DAYS * MICROS_PER_DAY) / this.runs);
    this.startMicros = options.endMicros - this.runs * this.runMicros;
    this.pointBeforeRun = Math.floor(this.runs * POINT_SHARE);

    this.sourceProduct = new Int32Array(this.sourceCount);
    this.sourceStore = new Uint8Array(this.sourceCount);
    this.sourceFirstRun = new Int32Array(this.sourceCount);
    this.sourceLastRun = new Int32Array(this.sourceCount);
    this.sourceBaseCents = new Int32Array(this.sourceCount);
    this.sourceOffset = new Int32Array(this.sourceCount + 1);
    this.placeSources();

    const total = options.snapshots;
    this.snapSource = new Int32Array(total);
    this.snapFirstRun = new Int32Array(total);
    this.snapLastRun = new Int32Array(total);
    this.snapPrice = new Int32Array(total);
    this.snapDiscount = new Int32Array(total);
    this.snapLoyal = new Int32Array(total);
    this.snapAvailable = new Int32Array(total);
    this.allocateSnapshots();
    for (let s = 0; s < this.sourceCount; s++) this.history(s);
    this.order = this.timeOrder();
  }

  /** When store `store` starts scraping in run `run`: stores take turns through the day, with a little jitter. */
  runTime(store: number, run: number): number {
    const jitter = (mix(store, run) / 2 ** 32) * 0.05;
    return this.startMicros + Math.floor((run + 0.05 + 0.12 * store + jitter) * this.runMicros);
  }

  /** When a run reaches a given listing: a scrape walks the catalog over about 8% of a run. */
  sourceTime(source: number, run: number): number {
    const store = this.sourceStore[source] ?? 0;
    return this.runTime(store, run) + Math.floor((mix(source, 7) / 2 ** 32) * 0.08 * this.runMicros);
  }

  private product(storeCount: number): ProductPlan {
    const rng = this.rng;
    const kind = rng.int(KINDS.length);
    const spec = KINDS[kind];
    if (!spec) throw new Error("no product kinds");
    // Many products in one store, some in two, fewer in all: weights 1, 0.45, 0.2, ...
    let weightSum = 0;
    for (let m = 0; m < storeCount; m++) weightSum += 0.45 ** m;
    let roll = rng.next() * weightSum;
    let count = 1;
    while (count < storeCount && roll >= 0.45 ** (count - 1)) roll -= 0.45 ** (count++ - 1);
    const all = Array.from({ length: storeCount }, (_, i) => i);
    for (let i = 0; i < count; i++) {
      const j = i + rng.int(storeCount - i);
      [all[i], all[j]] = [all[j] ?? 0, all[i] ?? 0];
    }
    return {
      id: rng.uuid(),
      kind,
      brand: spec.brands.length > 0 && !rng.chance(0.06) ? rng.int(spec.brands.length) : -1,
      variant: rng.int(spec.variants.length),
      size: rng.int(spec.sizes.length),
      stores: all.slice(0, count).sort((a, b) => a - b),
    };
  }

  private placeSources(): void {
    const rng = this.rng;
    let s = 0;
    this.products.forEach((product, p) => {
      const spec = KINDS[product.kind];
      if (!spec) return;
      const sizeShare = spec.sizes.length > 1 ? product.size / (spec.sizes.length - 1) : 0.5;
      const rubles = spec.priceMin + (spec.priceMax - spec.priceMin) * (0.55 * sizeShare + 0.45 * rng.next());
      for (const store of product.stores) {
        this.sourceProduct[s] = p;
        this.sourceStore[s] = store;
        const first = rng.chance(0.75) ? 0 : rng.int(Math.floor(this.runs * 0.97));
        this.sourceFirstRun[s] = first;
        this.sourceLastRun[s] = rng.chance(0.92) ? this.runs - 1 : rng.between(first, this.runs - 1);
        this.sourceBaseCents[s] = Math.round(rubles * 100 * (1 + 0.04 * rng.normal()));
        s++;
      }
    });
  }

  /** Splits the snapshot total over listings: proportional to lifetime and a per-listing volatility. */
  private allocateSnapshots(): void {
    const { rng, sourceCount } = this;
    const total = this.options.snapshots;
    const capacity = new Int32Array(sourceCount);
    const weight = new Float64Array(sourceCount);
    let weightSum = 0;
    let capacitySum = 0;
    for (let s = 0; s < sourceCount; s++) {
      capacity[s] = (this.sourceLastRun[s] ?? 0) - (this.sourceFirstRun[s] ?? 0) + 1;
      const stock = this.options.stores[this.sourceStore[s] ?? 0]?.reportsStock ? 1.6 : 1;
      weight[s] = (capacity[s] ?? 0) * Math.exp(0.8 * rng.normal()) * stock;
      weightSum += weight[s] ?? 0;
      capacitySum += capacity[s] ?? 0;
    }
    if (capacitySum < total) throw new RangeError(`cannot place ${total} snapshots in ${capacitySum} listing runs`);
    const minimum = total >= sourceCount ? 1 : 0;
    const count = new Int32Array(sourceCount);
    let placed = 0;
    for (let s = 0; s < sourceCount; s++) {
      const share = Math.floor((total * (weight[s] ?? 0)) / weightSum);
      count[s] = Math.min(capacity[s] ?? 0, Math.max(minimum, share));
      placed += count[s] ?? 0;
    }
    // Flooring and the caps leave a small remainder: settle it one snapshot per listing per pass.
    const start = rng.int(sourceCount);
    while (placed !== total) {
      const grow = placed < total;
      for (let i = 0; i < sourceCount && placed !== total; i++) {
        const s = (start + i) % sourceCount;
        const c = count[s] ?? 0;
        if (grow ? c < (capacity[s] ?? 0) : c > minimum) {
          count[s] = c + (grow ? 1 : -1);
          placed += grow ? 1 : -1;
        }
      }
    }
    for (let s = 0; s < sourceCount; s++) this.sourceOffset[s + 1] = (this.sourceOffset[s] ?? 0) + (count[s] ?? 0);
  }

  /** Change points and content of one listing's snapshots. */
  private history(source: number): void {
    const rng = this.rng;
    const offset = this.sourceOffset[source] ?? 0;
    const k = (this.sourceOffset[source + 1] ?? 0) - offset;
    if (k === 0) return;
    const first = this.sourceFirstRun[source] ?? 0;
    const last = this.sourceLastRun[source] ?? 0;
    // k-1 distinct change runs out of first+1..last, in order (selection sampling).
    this.snapFirstRun[offset] = first;
    let need = k - 1;
    let remaining = last - first;
    for (let run = first + 1; need > 0; run++, remaining--) {
      if (rng.next() * remaining < need) this.snapFirstRun[offset + k - need--] = run;
    }
    const store = this.options.stores[this.sourceStore[source] ?? 0];
    if (!store) throw new Error("unknown store");
    const walk = new PriceWalk(rng, store, this.sourceBaseCents[source] ?? 0);
    for (let i = 0; i < k; i++) {
      const at = offset + i;
      const from = this.snapFirstRun[at] ?? 0;
      const until = i + 1 < k ? (this.snapFirstRun[at + 1] ?? 0) - 1 : last;
      // Sometimes a listing drops out of the scrape before its price changes: a wider gap.
      this.snapLastRun[at] = until > from && rng.chance(0.12) ? rng.between(from, until - 1) : until;
      const yearFraction = from / this.runs;
      const state = i === 0 ? walk.start(yearFraction) : walk.step(yearFraction, i === k - 1);
      this.snapSource[at] = source;
      this.snapPrice[at] = state.regular;
      this.snapDiscount[at] = state.discount;
      this.snapLoyal[at] = state.loyal;
      this.snapAvailable[at] = state.available;
    }
  }

  /** Counting sort by (first run, store): the order a converter following the scrapes would insert rows. */
  private timeOrder(): Int32Array {
    const storeCount = this.options.stores.length;
    const buckets = new Int32Array(this.runs * storeCount + 1);
    const key = (at: number) => (this.snapFirstRun[at] ?? 0) * storeCount + (this.sourceStore[this.snapSource[at] ?? 0] ?? 0);
    const total = this.snapSource.length;
    for (let at = 0; at < total; at++) buckets[key(at) + 1] = (buckets[key(at) + 1] ?? 0) + 1;
    for (let b = 1; b < buckets.length; b++) buckets[b] = (buckets[b] ?? 0) + (buckets[b - 1] ?? 0);
    const order = new Int32Array(total);
    for (let at = 0; at < total; at++) {
      const b = key(at);
      const slot = buckets[b] ?? 0;
      order[slot] = at;
      buckets[b] = slot + 1;
    }
    return order;
  }
}
