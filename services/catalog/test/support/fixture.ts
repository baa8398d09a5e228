/**
 * The catalog test fixture (the original service's own test data) and the plumbing that serves it
 * from both backends: a temporary SQLite file, and PostgreSQL (in-memory PGlite, or a fresh
 * database on the server named by TEST_DATABASE_URL, dropped afterwards).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type Database, openScratchDatabase } from "@platform/core";
import SqliteDatabase from "better-sqlite3";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { buildApp, type CatalogAppDeps } from "../../src/app.js";
import { catalogDdl } from "../../src/db/ddl.js";
import { openPostgresSource, openSqliteSource } from "../../src/db/source.js";
import { call, type Method, type Reply } from "./http.js";
import { type Backend, category, image, imageOf, insert, product, settlement, snapshot, T } from "./rows.js";

export * from "./http.js";
export * from "./rows.js";

/** The original service's test fixture. */
export function fixtureSql(backend: Backend): string {
  const common = { primary_category_id: 1, settlement_id: 1, price_unit: "RUB", unit: "PCE" };
  const products = [
    product({
      ...common,
      id: 1,
      canonical_product_id: "prod-1",
      parser_name: "fixprice",
      source_id: "fp-1",
      plu: "PLU-1",
      sku: "SKU-1",
      title_original: "Milk Prostokvashino 1L",
      title_normalized_no_stopwords: "milk prostokvashino 1l",
      brand: "Prostokvashino",
      price: 100,
      discount_price: 90,
      loyal_price: 85,
      rating: 4.5,
      reviews_count: 12,
      promo: true,
      is_new: false,
      hit: false,
      adult: false,
      available_count: 5.5,
      package_quantity: 1,
      package_unit: "L",
      composition_original: "Whole milk",
      composition_normalized: "whole milk",
      observed_at: T("02-03", "09:00:00"),
      created_at: T("02-01", "08:00:00"),
      updated_at: T("02-03", "09:00:00"),
    }),
    product({
      ...common,
      id: 2,
      canonical_product_id: "prod-1",
      parser_name: "chizhik",
      source_id: "ch-1",
      title_original: "Prostokvashino milk 1 l",
      title_normalized_no_stopwords: "prostokvashino milk 1 l",
      price: 110,
      price_unit: "RUB/pc",
      rating: 4.1,
      promo: false,
      is_new: true,
      observed_at: T("02-04", "09:00:00"),
    }),
    product({
      ...common,
      id: 3,
      canonical_product_id: "prod-2",
      parser_name: "fixprice",
      source_id: "fp-2",
      title_original: "Kefir Domik 900 g",
      title_normalized_no_stopwords: "kefir domik 900g fermented",
      brand: "Village House",
      price: 120,
      discount_price: 115,
      rating: 4.0,
      promo: false,
      is_new: false,
      hit: true,
      adult: false,
      observed_at: T("02-05", "09:00:00"),
    }),
  ];
  const fp1 = {
    canonical_product_id: "prod-1",
    parser_name: "fixprice",
    source_id: "fp-1",
    source_run_id: "receiver:run-1:1",
    receiver_product_id: 1,
  };
  const snapshots = [
    snapshot({
      ...fp1,
      id: 101,
      receiver_artifact_id: 1001,
      receiver_sort_order: 1,
      observed_at: T("02-01", "10:00:00"),
      price: 100,
      available_count: 5,
    }),
    snapshot({
      ...fp1,
      id: 102,
      receiver_artifact_id: 1002,
      receiver_sort_order: 2,
      observed_at: T("02-01", "15:00:00"),
      price: 90,
      available_count: 4,
    }),
    snapshot({
      ...fp1,
      id: 103,
      receiver_artifact_id: 1003,
      receiver_sort_order: 3,
      observed_at: T("02-03", "09:00:00"),
      created_at: T("02-03", "09:00:05"),
      price: 80,
      available_count: 3,
    }),
    snapshot({
      id: 104,
      canonical_product_id: "prod-1",
      parser_name: "chizhik",
      source_id: "ch-1",
      source_run_id: "receiver:run-2:1",
      receiver_product_id: 2,
      observed_at: T("02-02", "12:00:00"),
      price: 120,
    }),
    snapshot({
      id: 201,
      canonical_product_id: "prod-interval",
      parser_name: "fixprice",
      source_id: "fp-int",
      source_run_id: "receiver:run-interval:1",
      receiver_product_id: 1,
      valid_from_at: T("02-10", "10:00:00"),
      valid_to_at: T("02-10", "12:00:00"),
      observed_at: T("02-10", "12:00:00"),
      price: 77,
    }),
  ];
  return [
    insert(backend, "catalog_categories", [
      category({
        id: 1,
        category_key: "fixprice:cat-milk",
        parser_name: "fixprice",
        source_uid: "cat-milk",
        title: "Milk",
        title_normalized: "milk",
        depth: 1,
        sort_order: 1,
      }),
    ]),
    insert(backend, "catalog_settlements", [
      settlement({
        id: 1,
        geo_key: "rus:moscow",
        country: "RUS",
        country_normalized: "rus",
        region: "Moscow",
        region_normalized: "moscow",
        name: "Moscow",
        name_normalized: "moscow",
        settlement_type: "city",
        latitude: 55.75,
        longitude: 37.62,
      }),
    ]),
    insert(backend, "catalog_products", products),
    insert(backend, "catalog_product_assets", [image(1, 1, imageOf("fp-1")), image(2, 2, imageOf("ch-1")), image(3, 3, imageOf("fp-2"))]),
    insert(backend, "catalog_product_snapshots", snapshots),
    insert(backend, "converter_sync_state", [
      { key: "receiver_cursor:fixprice", value: "2026-02-03T00:00:00+00:00\t123", updated_at: T("02-03", "00:00:00") },
    ]),
  ].join("\n");
}

export type ExtraSql = string | ((backend: Backend) => string);

export interface FixtureCatalog {
  app: FastifyInstance;
  close(): Promise<void>;
}

/** A database of its own: in-memory PGlite, or a fresh database on TEST_DATABASE_URL's server. */
export function createPostgresDatabase(): Promise<{ db: Database; dispose(): Promise<void> }> {
  return openScratchDatabase(process.env.TEST_DATABASE_URL?.trim() || undefined, "catalog_test");
}

export const silentLogger = createLogger({ level: "silent" });

/** The app over the SQLite file at `path`; close() also deletes `dir`, the test's scratch directory. */
export async function serveSqlite(path: string, dir: string, options: Partial<CatalogAppDeps> = {}): Promise<FixtureCatalog> {
  const source = openSqliteSource(path);
  const app = await buildApp({ source, logger: silentLogger, ...options });
  return {
    app,
    async close() {
      await app.close();
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Schema + `script` only (no fixture), served by a freshly built app. */
export async function openCatalog(backend: Backend, script: ExtraSql = ""): Promise<FixtureCatalog> {
  const text = typeof script === "function" ? script(backend) : script;
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "catalog-test-"));
    const path = join(dir, "catalog.db");
    const file = new SqliteDatabase(path);
    try {
      file.exec(catalogDdl("sqlite"));
      if (text.trim()) file.exec(text);
    } finally {
      file.close();
    }
    return serveSqlite(path, dir);
  }
  const { db, dispose } = await createPostgresDatabase();
  await db.exec(catalogDdl("postgres"));
  if (text.trim()) await db.exec(text);
  const source = await openPostgresSource(db);
  const app = await buildApp({ source, logger: silentLogger });
  return {
    app,
    async close() {
      await app.close();
      await source.close();
      await dispose();
    },
  };
}

/** Schema + the original fixture + optional extra rows. */
export function openFixtureCatalog(backend: Backend, extraSql?: ExtraSql): Promise<FixtureCatalog> {
  return openCatalog(backend, (b) => `${fixtureSql(b)}\n${typeof extraSql === "function" ? extraSql(b) : (extraSql ?? "")}`);
}

export interface CatalogHandle {
  readonly app: FastifyInstance;
  get(url: string): Promise<Reply>;
  call(method: Method, url: string): Promise<Reply>;
}

/** Registers beforeAll/afterAll that open one catalog for the enclosing describe block. */
export function useCatalog(backend: Backend, open: () => Promise<FixtureCatalog> = () => openFixtureCatalog(backend)): CatalogHandle {
  let catalog: FixtureCatalog | undefined;
  beforeAll(async () => {
    catalog = await open();
  });
  afterAll(async () => {
    await catalog?.close();
  });
  const app = (): FastifyInstance => {
    if (!catalog) throw new Error("catalog not opened");
    return catalog.app;
  };
  return {
    get app() {
      return app();
    },
    get: (url) => call(app(), "GET", url),
    call: (method, url) => call(app(), method, url),
  };
}
