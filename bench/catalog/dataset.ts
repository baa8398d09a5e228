/**
 * The benchmark catalog: generated once with the demo generator and cached under bench/.data/
 * (git-ignored; ~3 GB, about a minute to build). The end date is fixed so a cached file is the
 * same whenever it was built.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { generateCatalog } from "@platform/catalog";
import BetterSqlite3 from "better-sqlite3";

export const BENCH_SIZE = { products: 100_000, stores: 3, regions: 10, snapshots: 5_000_000, seed: 1 } as const;
const END_AT = new Date("2026-03-12T00:00:00Z");

export interface Dataset {
  path: string;
  bytes: number;
  /** Seconds spent generating it in this run; null when the cached file was reused. */
  generatedInSeconds: number | null;
}

export function ensureDataset(dataDir: string): Dataset {
  const { products, stores, regions, snapshots, seed } = BENCH_SIZE;
  const path = join(dataDir, `catalog-p${products}-s${stores}-r${regions}-n${snapshots}-seed${seed}-2026-03-12.db`);
  if (existsSync(path)) return { path, bytes: statSync(path).size, generatedInSeconds: null };
  console.log(`generating the benchmark catalog into ${path} (once; about a minute)`);
  const counts = generateCatalog(path, {
    ...BENCH_SIZE,
    endAt: END_AT,
    onProgress: (message) => {
      if (!/^wrote \d+ of/.test(message) || /^wrote \d*000000 of/.test(message)) console.log(`  [generate] ${message}`);
    },
  });
  return { path, bytes: counts.bytes, generatedInSeconds: counts.seconds };
}

/** One (product, store listing) pair for the dynamics route. */
export interface Triple {
  canonicalProductId: string;
  parserName: string;
  sourceId: string;
}

export interface Samples {
  triples: Triple[];
  /** A one-year window ending at the first midnight after the newest snapshot. */
  dateFrom: Date;
  dateTo: Date;
}

/** Real listings spread evenly over the table, so the rotation touches different pages and products. */
export function sampleDataset(path: string, count: number): Samples {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    const rows = (db.prepare("SELECT COUNT(*) AS n FROM catalog_products").get() as { n: number }).n;
    const step = Math.max(1, Math.floor(rows / count));
    const triples = db
      .prepare(
        `SELECT canonical_product_id AS canonicalProductId, parser_name AS parserName, source_id AS sourceId
         FROM catalog_products WHERE id % ? = 0 ORDER BY id LIMIT ?`,
      )
      .all(step, count) as Triple[];
    const newest = (db.prepare("SELECT MAX(observed_at) AS t FROM catalog_product_snapshots").get() as { t: string }).t;
    // Stored as naive UTC text (the converter's format): read it as UTC.
    const dayMs = 86_400_000;
    const dateTo = new Date(Math.ceil(Date.parse(`${newest.replace(" ", "T").slice(0, 23)}Z`) / dayMs) * dayMs);
    const dateFrom = new Date(dateTo.getTime() - 365 * dayMs);
    return { triples, dateFrom, dateTo };
  } finally {
    db.close();
  }
}
