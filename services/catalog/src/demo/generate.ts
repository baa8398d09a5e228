/**
 * Generates a demo catalog: a new SQLite file in the converter's schema filled with realistic,
 * reproducible data (same seed and end date, same file). Used by `npm start` when no catalog
 * exists, by the benchmark and by tests.
 *
 * The file is built as `<path>.tmp` and renamed at the end, so a crash never leaves something that
 * looks like a catalog. Bulk-load settings: no journal, no fsync, secondary indexes created after
 * the rows are in (sorting once is far cheaper than maintaining nine indexes row by row).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { catalogIndexesDdl, catalogTablesDdl } from "../db/ddl.js";
import { writeSnapshots } from "./history.js";
import { writeListings } from "./listings.js";
import { CatalogPlan } from "./plan.js";
import { Random } from "./random.js";
import { writeCategories, writeSettlements, writeSyncState } from "./reference.js";
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
  bytes: number;
  seconds: number;
}

/** The catalog `npm start` creates when none exists: small enough to build in a couple of seconds. */
export const DEMO_SIZE = { products: 2_000, stores: 4, regions: 6, snapshots: 60_000 } as const;

export const DEFAULT_SEED = 20260312;

export function generateCatalog(path: string, options: GenerateOptions): GenerateCounts {
  validate(options);
  if (existsSync(path)) throw new Error(`refusing to overwrite existing file ${path}`);
  const started = performance.now();
  const say = options.onProgress ?? (() => {});
  const tmp = `${path}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  // A leftover from an interrupted run is ours and incomplete.
  rmSync(tmp, { force: true });

  const db = new BetterSqlite3(tmp);
  try {
    db.pragma("journal_mode = OFF");
    db.pragma("synchronous = OFF");
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma("cache_size = -65536");
    db.exec(catalogTablesDdl("sqlite"));

    const rng = new Random(options.seed ?? DEFAULT_SEED);
    const stores = STORES.slice(0, options.stores);
    const endMicros = startOfUtcDay(options.endAt ?? new Date());
    say(`planning ${options.products} products, ${options.snapshots} snapshots`);
    const plan = new CatalogPlan(rng, { products: options.products, stores, snapshots: options.snapshots, endMicros });
    const firstSeen = plan.startMicros;
    const lastSeen = plan.runTime(0, plan.runs - 1);

    const counts = db.transaction(() => {
      const settlements = writeSettlements(db, options.regions, firstSeen, lastSeen);
      const categories = writeCategories(db, stores, firstSeen, lastSeen);
      const listings = writeListings(db, rng, plan, categories, settlements);
      say(`wrote ${listings.rows} listings of ${plan.products.length} products`);
      const history = writeSnapshots(db, plan, listings.sourceIds, (done) => say(`wrote ${done} of ${options.snapshots} snapshots`));
      writeSyncState(db, history.cursors, lastSeen);
      return { settlements, listings, history };
    })();

    say("creating indexes");
    // Measured on 5M snapshots: a small page cache lets SQLite's sorter spill sorted runs and merge
    // them on a helper thread, several times faster than one huge in-memory sort.
    db.pragma("cache_size = -2000");
    db.pragma("threads = 2");
    db.exec(catalogIndexesDdl("sqlite"));
    say("analyzing");
    // Sampled statistics: enough for the planner, seconds instead of a minute on large catalogs.
    db.pragma("analysis_limit = 2000");
    db.exec("ANALYZE");
    db.pragma("journal_mode = DELETE");
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const result: GenerateCounts = {
      products: plan.products.length,
      sources: counts.listings.rows,
      assets: counts.listings.assets,
      snapshots: counts.history.snapshots,
      intervalSnapshots: counts.history.intervalSnapshots,
      pointSnapshots: counts.history.pointSnapshots,
      stores: stores.length,
      regions: options.regions,
      settlements: counts.settlements.ids.length,
      categories: count("catalog_categories"),
      syncStates: count("converter_sync_state"),
      bytes: 0,
      seconds: 0,
    };
    db.close();
    renameSync(tmp, path);
    result.bytes = statSync(path).size;
    result.seconds = Math.round(performance.now() - started) / 1000;
    say(`done in ${result.seconds} s`);
    return result;
  } catch (error) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw error;
  }
}

function validate(options: GenerateOptions): void {
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
