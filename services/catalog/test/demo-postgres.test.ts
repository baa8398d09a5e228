/**
 * The demo catalog loaded into PostgreSQL (PGlite, or a fresh database on TEST_DATABASE_URL's
 * server) holds what the SQLite file holds for the same seed and end date, in the converter's
 * PostgreSQL types, and a load that fails or finds a filled catalog leaves everything as it was.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, ident, join as joinSql, sql } from "@platform/core";
import BetterSqlite3 from "better-sqlite3";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.js";
import { TABLES } from "../src/db/schema.js";
import { openPostgresSource, openSqliteSource } from "../src/db/source.js";
import { type GenerateCounts, generateCatalog } from "../src/demo/generate.js";
import { loadDemoCatalog } from "../src/demo/postgres.js";
import { DEMO_COLUMNS } from "../src/demo/tables.js";
import { call, createPostgresDatabase, silentLogger, url } from "./support/fixture.js";

const OPTIONS = { products: 60, stores: 3, regions: 3, snapshots: 1_500, seed: 42, endAt: new Date("2026-03-12T00:00:00Z") };

const countsOf = ({ bytes: _bytes, seconds: _seconds, ...rest }: GenerateCounts) => rest;

async function tablesIn(db: Database, schema: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${schema} ORDER BY table_name`,
  );
  return rows.map((row) => row.name);
}

describe("demo catalog on PostgreSQL", () => {
  let pg: { db: Database; dispose(): Promise<void> };
  let dir: string;
  let sqliteCounts: GenerateCounts;
  let postgresCounts: GenerateCounts | undefined;
  const apps: FastifyInstance[] = [];
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    pg = await createPostgresDatabase();
    dir = mkdtempSync(join(tmpdir(), "catalog-demo-pg-"));
    sqliteCounts = generateCatalog(join(dir, "demo.db"), OPTIONS);
    postgresCounts = await loadDemoCatalog(pg.db, OPTIONS, "refuse");
    const sqliteSource = openSqliteSource(join(dir, "demo.db"));
    const postgresSource = openPostgresSource(pg.db);
    for (const source of [sqliteSource, postgresSource]) {
      const app = await buildApp({ source, logger: silentLogger });
      apps.push(app);
      closers.push(async () => {
        await app.close();
        await source.close();
      });
    }
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await pg?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reports and holds the same rows as the SQLite demo", async () => {
    expect(postgresCounts && countsOf(postgresCounts)).toEqual(countsOf(sqliteCounts));
    const file = new BetterSqlite3(join(dir, "demo.db"), { readonly: true });
    try {
      for (const table of TABLES) {
        const inFile = file.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number };
        const { rows } = await pg.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${ident(table)}`);
        expect(rows[0]?.n, table).toBe(inFile.n);
      }
    } finally {
      file.close();
    }
  });

  it("holds, row for row, what the SQLite file holds", async () => {
    const file = new BetterSqlite3(join(dir, "demo.db"), { readonly: true });
    try {
      for (const table of TABLES) {
        const columns = DEMO_COLUMNS[table];
        // SQLite keeps naive UTC text, 0/1 and REAL; PostgreSQL's values are brought to those forms.
        const asStored = columns.map(([name, type]) =>
          type === "timestamp"
            ? sql`to_char(${ident(name)} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS ${ident(name)}`
            : type === "boolean"
              ? sql`${ident(name)}::int AS ${ident(name)}`
              : type === "numeric"
                ? sql`${ident(name)}::float8 AS ${ident(name)}`
                : sql`${ident(name)}`,
        );
        const fromPostgres = (await pg.db.query(sql`SELECT ${joinSql(asStored)} FROM ${ident(table)}`)).rows;
        const names = columns.map(([name]) => `"${name}"`).join(", ");
        const fromFile = file.prepare(`SELECT ${names} FROM ${table}`).all() as Record<string, unknown>[];
        const byFirst = (a: Record<string, unknown>, b: Record<string, unknown>) =>
          String(Object.values(a)[0]).localeCompare(String(Object.values(b)[0]), "en", { numeric: true });
        expect(fromPostgres.sort(byFirst), table).toEqual(fromFile.sort(byFirst));
      }
    } finally {
      file.close();
    }
  });

  it("answers the catalog's routes with the same JSON on both databases", async () => {
    const [sqliteApp, postgresApp] = apps as [FastifyInstance, FastifyInstance];
    const same = async (path: string) => {
      const [a, b] = await Promise.all([call(sqliteApp, "GET", path), call(postgresApp, "GET", path)]);
      expect(a.status, path).toBe(200);
      expect(b.body, path).toEqual(a.body);
      return a.body;
    };
    const products = await same(url("/products", { limit: 100 }));
    expect(products.items.length).toBeGreaterThan(20);
    for (const sort of ["price_asc", "rating_desc", "observed_at_asc"]) await same(url("/products", { sort, limit: 15, offset: 5 }));
    await same(url("/products", { q: "молоко" }));
    await same(url("/products/count", { store: ["fixprice", "chizhik"] }));
    await same(url("/products/common/count", { scope: "stores" }));
    await same(url("/categories", { limit: 100 }));
    await same(url("/settlements", { limit: 100 }));
    await same("/sync/cursors");
    for (const product of products.items.slice(0, 8)) {
      const id = encodeURIComponent(product.canonical_product_id);
      await same(`/products/${id}`);
      const sources = await same(`/products/${id}/sources`);
      await same(url(`/products/${id}/snapshots`, { limit: 100 }));
      const source = sources.items[0];
      await same(
        url(`/products/${id}/dynamics`, {
          parser_name: source.parser_name,
          source_id: source.source_id,
          field: "price",
          date_from: "2025-03-01T00:00:00Z",
          date_to: "2026-03-12T00:00:00Z",
          interval: "7d",
        }),
      );
    }
  });

  it("uses the converter's PostgreSQL types and moves the id sequences past the rows", async () => {
    const { rows } = await pg.db.query<{ column_name: string; data_type: string }>(
      sql`SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'catalog_products' AND column_name IN ('observed_at', 'promo')`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]))).toEqual({
      observed_at: "timestamp with time zone",
      promo: "boolean",
    });
    const next = await pg.db.query<{ id: number }>(
      sql`SELECT nextval(pg_get_serial_sequence('catalog_product_snapshots', 'id'))::int AS id`,
    );
    expect(next.rows[0]?.id).toBe(OPTIONS.snapshots + 1);
  });

  it("refuses catalog tables that hold rows and skips present ones when asked", async () => {
    await expect(loadDemoCatalog(pg.db, OPTIONS, "refuse")).rejects.toThrow(/refusing .*catalog_products.* already hold rows/);
    await expect(loadDemoCatalog(pg.db, OPTIONS, "skip")).resolves.toBeUndefined();
    const { rows } = await pg.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM catalog_product_snapshots`);
    expect(rows[0]?.n).toBe(OPTIONS.snapshots);
  });

  it("leaves nothing behind when the load fails after the rows are in", async () => {
    const failing = {
      ...OPTIONS,
      schema: "demo_interrupted",
      onProgress: (message: string) => {
        if (message === "creating indexes") throw new Error("interrupted");
      },
    };
    await expect(loadDemoCatalog(pg.db, failing, "refuse")).rejects.toThrow("interrupted");
    const { rows } = await pg.db.query(sql`SELECT 1 FROM pg_namespace WHERE nspname = 'demo_interrupted'`);
    expect(rows).toEqual([]);
  });

  it("leaves an existing schema as it was when an insert fails midway", async () => {
    await pg.db.exec(`CREATE SCHEMA demo_broken;
      CREATE TABLE demo_broken.catalog_product_assets (id bigint PRIMARY KEY, product_id integer, required_extra text NOT NULL)`);
    await expect(loadDemoCatalog(pg.db, { ...OPTIONS, schema: "demo_broken" }, "refuse")).rejects.toThrow(/required_extra|asset_kind/);
    expect(await tablesIn(pg.db, "demo_broken")).toEqual(["catalog_product_assets"]);
    const { rows } = await pg.db.query(sql`SELECT * FROM demo_broken.catalog_product_assets`);
    expect(rows).toEqual([]);
  });

  it("fills empty catalog tables of a named schema", async () => {
    await pg.db.exec("CREATE SCHEMA demo_empty");
    await pg.db.exec(`CREATE TABLE demo_empty.converter_sync_state ("key" varchar(191) PRIMARY KEY, value text, updated_at timestamptz)`);
    const counts = await loadDemoCatalog(pg.db, { ...OPTIONS, schema: "demo_empty" }, "refuse");
    expect(counts && countsOf(counts)).toEqual(countsOf(sqliteCounts));
    expect(await tablesIn(pg.db, "demo_empty")).toEqual([...TABLES].sort());
  });
});
