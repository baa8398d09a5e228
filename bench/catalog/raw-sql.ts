/**
 * The database work each route costs in the original service (/products, the count routes and
 * /dynamics), run directly with better-sqlite3 on one connection. It is the yardstick for the
 * service: "ratio" in the report is service requests/s over these operations/s.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Samples } from "./dataset.js";

export interface RawResult {
  opsPerSecond: number;
  meanMs: number;
  operations: number;
}

export type RawWork = () => void;

/** The original's default /products page: COUNT query, page query with window function, image query. */
export function productsPageWork(db: BetterSqlite3.Database): RawWork {
  const filtered = "SELECT cp.* FROM catalog_products cp";
  const count = db.prepare(`
    WITH filtered AS (${filtered})
    SELECT COUNT(*) AS total FROM (SELECT canonical_product_id FROM filtered GROUP BY canonical_product_id) grouped`);
  const page = db.prepare(`
    WITH filtered AS (${filtered}),
    canonicals AS (
      SELECT canonical_product_id, COUNT(*) AS sources_count, MAX(observed_at) AS observed_at_latest,
             MIN(COALESCE(discount_price, loyal_price, price)) AS price_from,
             GROUP_CONCAT(DISTINCT parser_name) AS parsers_csv
      FROM filtered GROUP BY canonical_product_id),
    ranked AS (
      SELECT f.*, ROW_NUMBER() OVER (
        PARTITION BY f.canonical_product_id ORDER BY f.observed_at DESC, f.updated_at DESC, f.id ASC) AS rn
      FROM filtered f)
    SELECT c.canonical_product_id, r.title_original AS title, r.brand, c.price_from, r.price_unit, c.sources_count,
           c.observed_at_latest, c.parsers_csv, r.id AS representative_product_id, r.rating
    FROM canonicals c JOIN ranked r ON r.canonical_product_id = c.canonical_product_id AND r.rn = 1
    ORDER BY c.observed_at_latest DESC, c.canonical_product_id ASC
    LIMIT ? OFFSET ?`);
  const images = (ids: number) =>
    db.prepare(`
      SELECT product_id, value FROM catalog_product_assets
      WHERE asset_kind = 'image_url' AND sort_order = 0 AND product_id IN (${Array(ids).fill("?").join(", ")})`);
  const imageStatements = new Map<number, BetterSqlite3.Statement>();
  return () => {
    count.get();
    const rows = page.all(20, 0) as { representative_product_id: number }[];
    const ids = rows.map((row) => row.representative_product_id);
    if (ids.length === 0) return;
    let statement = imageStatements.get(ids.length);
    if (!statement) {
      statement = images(ids.length);
      imageStatements.set(ids.length, statement);
    }
    statement.all(...ids);
  };
}

/** /products/count without filters. */
export function productsCountWork(db: BetterSqlite3.Database): RawWork {
  const count = db.prepare("SELECT COUNT(DISTINCT canonical_product_id) AS n FROM catalog_products WHERE canonical_product_id IS NOT NULL");
  return () => {
    count.get();
  };
}

/** /products/common/count?scope=stores: products sold by every store present. */
export function commonCountWork(db: BetterSqlite3.Database): RawWork {
  const common = db.prepare(`
    WITH base AS (
      SELECT DISTINCT cp.canonical_product_id, LOWER(cp.parser_name) AS parser_name
      FROM catalog_products cp WHERE cp.canonical_product_id IS NOT NULL),
    required AS (SELECT COUNT(DISTINCT parser_name) AS required_stores FROM base),
    overlap AS (
      SELECT canonical_product_id FROM base GROUP BY canonical_product_id
      HAVING COUNT(DISTINCT parser_name) = (SELECT required_stores FROM required)
         AND (SELECT required_stores FROM required) > 0)
    SELECT COALESCE((SELECT required_stores FROM required), 0) AS required_stores, COUNT(*) AS common_products_count
    FROM overlap`);
  return () => {
    common.get();
  };
}

/**
 * /dynamics: the existence probe and the series query for one listing, rotating over the sampled
 * listings. Bounds are bound in the stored naive format so the comparison is the correct one.
 */
export function dynamicsWork(db: BetterSqlite3.Database, samples: Samples): RawWork {
  const exists = db.prepare(`
    SELECT 1 AS hit FROM catalog_product_snapshots
    WHERE canonical_product_id = ? AND parser_name = ? AND source_id = ? LIMIT 1`);
  const series = db.prepare(`
    SELECT observed_at, COALESCE(valid_from_at, observed_at) AS valid_from_at,
           COALESCE(valid_to_at, observed_at) AS valid_to_at, price AS metric_value
    FROM catalog_product_snapshots
    WHERE canonical_product_id = ? AND parser_name = ? AND source_id = ?
      AND COALESCE(valid_from_at, observed_at) <= ? AND COALESCE(valid_to_at, observed_at) >= ?
    ORDER BY observed_at ASC, id ASC`);
  const naive = (date: Date) => date.toISOString().replace("T", " ").replace("Z", "000");
  const from = naive(samples.dateFrom);
  const to = naive(samples.dateTo);
  let next = 0;
  return () => {
    const triple = samples.triples[next++ % samples.triples.length];
    if (!triple) return;
    exists.get(triple.canonicalProductId, triple.parserName, triple.sourceId);
    series.all(triple.canonicalProductId, triple.parserName, triple.sourceId, to, from);
  };
}

/** Runs `work` back to back for `seconds` (at least once). */
export function measureRaw(work: RawWork, seconds: number): RawResult {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let operations = 0;
  do {
    work();
    operations++;
  } while (performance.now() < deadline);
  const elapsedMs = performance.now() - started;
  return { opsPerSecond: (operations * 1000) / elapsedMs, meanMs: elapsedMs / operations, operations };
}
