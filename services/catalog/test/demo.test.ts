import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TABLES } from "../src/db/schema.js";
import { type GenerateCounts, generateCatalog } from "../src/demo/generate.js";

const NAIVE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;
const SIZE = { products: 50, stores: 2, regions: 2, snapshots: 500 };

/**
 * Every value of every table (SQLite's quote(): type and text) for seed 7, as the generator wrote
 * it before its rows became a stream shared with PostgreSQL. A change here must be deliberate.
 */
const SEED_7_DIGEST = "28977c39d75ab1c64f86ee81eaf56f15ee158889dd21c2079b9b59012dbd6fca";

describe("demo catalog generator", () => {
  let dir: string;
  let path: string;
  let counts: GenerateCounts;
  let db: BetterSqlite3.Database;
  const one = <T>(query: string) => db.prepare(query).get() as T;
  const n = (query: string) => one<{ n: number }>(query).n;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "catalog-demo-"));
    path = join(dir, "catalog.db");
    counts = generateCatalog(path, { ...SIZE, seed: 7, endAt: new Date("2026-03-12T00:00:00Z") });
    db = new BetterSqlite3(path, { readonly: true });
  });

  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the requested sizes and reports them", () => {
    expect(n("SELECT COUNT(DISTINCT canonical_product_id) AS n FROM catalog_products")).toBe(SIZE.products);
    expect(n("SELECT COUNT(*) AS n FROM catalog_product_snapshots")).toBe(SIZE.snapshots);
    expect(n("SELECT COUNT(DISTINCT parser_name) AS n FROM catalog_products")).toBe(SIZE.stores);
    expect(n("SELECT COUNT(DISTINCT region) AS n FROM catalog_settlements")).toBe(SIZE.regions);
    expect(counts).toMatchObject({ products: SIZE.products, snapshots: SIZE.snapshots, stores: SIZE.stores });
    expect(counts.sources).toBe(n("SELECT COUNT(*) AS n FROM catalog_products"));
    expect(counts.intervalSnapshots + counts.pointSnapshots).toBe(SIZE.snapshots);
  });

  it("gives every product at least one source and every source images", () => {
    expect(n("SELECT MIN(c) AS n FROM (SELECT COUNT(*) AS c FROM catalog_products GROUP BY canonical_product_id)")).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      n(`SELECT COUNT(*) AS n FROM catalog_products p
         WHERE NOT EXISTS (SELECT 1 FROM catalog_product_assets a WHERE a.product_id = p.id AND a.sort_order = 0)`),
    ).toBe(0);
  });

  it("has interval snapshots (newer) and point snapshots without valid_* (older)", () => {
    expect(n("SELECT COUNT(*) AS n FROM catalog_product_snapshots WHERE valid_from_at IS NULL AND valid_to_at IS NULL")).toBeGreaterThan(0);
    expect(n("SELECT COUNT(*) AS n FROM catalog_product_snapshots WHERE valid_from_at IS NOT NULL")).toBeGreaterThan(0);
    expect(n("SELECT COUNT(*) AS n FROM catalog_product_snapshots WHERE valid_from_at > valid_to_at OR valid_to_at <> observed_at")).toBe(
      0,
    );
    const newestPoint = one<{ t: string }>("SELECT MAX(observed_at) AS t FROM catalog_product_snapshots WHERE valid_from_at IS NULL").t;
    const oldestIntervalEnd = one<{ t: string }>(
      "SELECT MIN(valid_to_at) AS t FROM catalog_product_snapshots WHERE valid_to_at IS NOT NULL",
    ).t;
    expect(newestPoint < oldestIntervalEnd).toBe(true);
  });

  it("keeps each listing's current prices equal to its latest snapshot", () => {
    const mismatches = n(`
      SELECT COUNT(*) AS n FROM catalog_products p
      JOIN catalog_product_snapshots s ON s.id = (
        SELECT id FROM catalog_product_snapshots x
        WHERE x.parser_name = p.parser_name AND x.source_id = p.source_id
        ORDER BY x.observed_at DESC, x.id DESC LIMIT 1)
      WHERE NOT (p.price IS s.price AND p.discount_price IS s.discount_price AND p.loyal_price IS s.loyal_price
                 AND p.observed_at = s.observed_at)`);
    expect(mismatches).toBe(0);
  });

  it("stores timestamps as naive UTC text, like the converter", () => {
    const rows = db
      .prepare(
        `SELECT observed_at AS t FROM catalog_products
         UNION ALL SELECT created_at FROM catalog_product_snapshots
         UNION ALL SELECT valid_from_at FROM catalog_product_snapshots WHERE valid_from_at IS NOT NULL
         UNION ALL SELECT updated_at FROM catalog_settlements`,
      )
      .all() as { t: unknown }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.t).toMatch(NAIVE);
    const latest = one<{ t: string }>("SELECT MAX(observed_at) AS t FROM catalog_product_snapshots").t;
    expect(latest < "2026-03-12 00:00:00").toBe(true);
    expect(latest > "2026-03-10").toBe(true);
  });

  it("writes sync cursors as `<ISO>\\t<int>` per store plus an unrelated key", () => {
    const rows = db.prepare(`SELECT "key" AS k, value FROM converter_sync_state ORDER BY "key"`).all() as { k: string; value: string }[];
    const cursors = rows.filter((row) => row.k.startsWith("receiver_cursor:"));
    expect(cursors).toHaveLength(SIZE.stores);
    for (const cursor of cursors) expect(cursor.value).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+\+00:00\t\d+$/);
    expect(rows.length).toBeGreaterThan(cursors.length);
  });

  it("writes exactly the pinned data for its seed", () => {
    const hash = createHash("sha256");
    for (const table of [...TABLES, "sqlite_sequence"]) {
      const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map(({ name }) => `quote("${name}")`);
      const lines = db
        .prepare(`SELECT ${columns.join(" || ',' || ")} FROM ${table} ORDER BY rowid`)
        .pluck()
        .iterate();
      for (const line of lines) hash.update(`${line}\n`);
    }
    expect(hash.digest("hex")).toBe(SEED_7_DIGEST);
  });

  it("leaves no temporary file and refuses to overwrite", () => {
    expect(existsSync(`${path}.tmp`)).toBe(false);
    const before = readFileSync(path).length;
    expect(() => generateCatalog(path, SIZE)).toThrow(/refusing to overwrite/);
    expect(readFileSync(path).length).toBe(before);
  });

  it("is reproducible from the seed and replaces a stale temporary file", () => {
    const again = join(dir, "again.db");
    writeFileSync(`${again}.tmp`, "half-written");
    generateCatalog(again, { ...SIZE, seed: 7, endAt: new Date("2026-03-12T00:00:00Z") });
    expect(existsSync(`${again}.tmp`)).toBe(false);
    const other = new BetterSqlite3(again, { readonly: true });
    const digest = (handle: BetterSqlite3.Database) =>
      handle.prepare("SELECT group_concat(content_fingerprint || observed_at, ',') AS d FROM catalog_product_snapshots").get();
    expect(digest(other)).toEqual(digest(db));
    other.close();
  });
});
