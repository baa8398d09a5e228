/**
 * The demo catalog as a stream of rows, decided from the seed and the end date alone: the SQLite
 * file writer and the PostgreSQL loader consume the same stream, so both hold the same data.
 * Rows are produced lazily (a generator), so a large catalog never sits in memory as rows.
 */

import { snapshotRows } from "./history.js";
import { listingRows } from "./listings.js";
import { CatalogPlan } from "./plan.js";
import { Random } from "./random.js";
import { categoryRows, settlementRows, syncStateRows } from "./reference.js";
import type { DemoRow } from "./tables.js";
import { startOfUtcDay } from "./time.js";
import { REGIONS, STORES } from "./words.js";

export interface GenerateOptions {
  products: number;
  stores: number;
  regions: number;
  snapshots: number;
  seed?: number;
  /** The data ends just before this instant's UTC day; default today, so the demo's last year is the real one. */
  endAt?: Date;
  onProgress?(message: string): void;
}

export interface GenerateCounts {
  products: number;
  sources: number;
  assets: number;
  snapshots: number;
  intervalSnapshots: number;
  pointSnapshots: number;
  stores: number;
  regions: number;
  settlements: number;
  categories: number;
  syncStates: number;
  /** Size of the SQLite file, or of the catalog tables with their indexes on PostgreSQL. */
  bytes: number;
  seconds: number;
}

/** The catalog `npm start` creates when none exists: small enough to build in a couple of seconds. */
export const DEMO_SIZE = { products: 2_000, stores: 4, regions: 6, snapshots: 60_000 } as const;

export const DEFAULT_SEED = 20260312;

/** What the stream reports when it ends; the writer adds the row counts it saw, the size and the time. */
export type StreamCounts = Omit<GenerateCounts, "categories" | "syncStates" | "bytes" | "seconds">;

/** Every row of the demo catalog, in an order that satisfies each table's references. */
export function* demoRows(options: GenerateOptions): Generator<DemoRow, StreamCounts> {
  validate(options);
  const say = options.onProgress ?? (() => {});
  const rng = new Random(options.seed ?? DEFAULT_SEED);
  const stores = STORES.slice(0, options.stores);
  const endMicros = startOfUtcDay(options.endAt ?? new Date());
  say(`planning ${options.products} products, ${options.snapshots} snapshots`);
  const plan = new CatalogPlan(rng, { products: options.products, stores, snapshots: options.snapshots, endMicros });
  const firstSeen = plan.startMicros;
  const lastSeen = plan.runTime(0, plan.runs - 1);

  const settlements = yield* settlementRows(options.regions, firstSeen, lastSeen);
  const categories = yield* categoryRows(stores, firstSeen, lastSeen);
  const listings = yield* listingRows(rng, plan, categories, settlements);
  say(`wrote ${listings.rows} listings of ${plan.products.length} products`);
  const history = yield* snapshotRows(plan, listings.sourceIds, (done) => say(`wrote ${done} of ${options.snapshots} snapshots`));
  yield* syncStateRows(history.cursors, lastSeen);
  return {
    products: plan.products.length,
    sources: listings.rows,
    assets: listings.assets,
    snapshots: history.snapshots,
    intervalSnapshots: history.intervalSnapshots,
    pointSnapshots: history.pointSnapshots,
    stores: stores.length,
    regions: options.regions,
    settlements: settlements.ids.length,
  };
}

/** Throws a RangeError naming every option out of range, before anything is written. */
export function validate(options: GenerateOptions): void {
  const problems: string[] = [];
  const check = (name: keyof GenerateOptions, min: number, max: number) => {
    const value = options[name];
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}`);
    }
  };
  check("products", 1, 10_000_000);
  check("stores", 1, STORES.length);
  check("regions", 1, REGIONS.length);
  check("snapshots", 0, 100_000_000);
  if (options.seed !== undefined) check("seed", 0, 2 ** 32 - 1);
  if (problems.length > 0) throw new RangeError(problems.join("; "));
}
