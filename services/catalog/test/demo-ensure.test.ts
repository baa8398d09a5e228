/**
 * ensureDemoCatalog: a demo catalog where the configured one is missing, nothing where one
 * exists. SQLite always; PostgreSQL on the server named by TEST_DATABASE_URL (a URL is what the
 * service is configured with, so PGlite cannot stand in), skipped when it is unset.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, ident, openDatabase, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDemoCatalog } from "../src/demo/ensure.js";

const SIZE = { products: 40, stores: 2, regions: 2, snapshots: 600, seed: 5, endAt: new Date("2026-03-12T00:00:00Z") };
const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

describe("ensureDemoCatalog on SQLite", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "catalog-ensure-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("generates the file once, then leaves it alone", async () => {
    const path = join(dir, "nested", "catalog.db");
    const messages: string[] = [];
    const first = await ensureDemoCatalog(`sqlite:///${path}`, { ...SIZE, onProgress: (m) => messages.push(m) });
    expect(first).toMatchObject({
      created: true,
      target: { kind: "sqlite", path },
      counts: { products: SIZE.products, snapshots: SIZE.snapshots },
    });
    expect(messages[0]).toContain(path);
    expect(messages.at(-1)).toMatch(/^done in/);
    const modified = statSync(path).mtimeMs;
    const second = await ensureDemoCatalog({ kind: "sqlite", path }, SIZE);
    expect(second).toEqual({ created: false, target: { kind: "sqlite", path } });
    expect(statSync(path).mtimeMs).toBe(modified);
  });

  it("uses the service's default database when none is configured", async () => {
    const result = await ensureDemoCatalog(undefined, { ...SIZE, cwd: dir });
    expect(result.created).toBe(true);
    expect(existsSync(join(dir, "catalog.db"))).toBe(true);
  });
});

describe.skipIf(!serverUrl)("ensureDemoCatalog on PostgreSQL", () => {
  const name = `catalog_ensure_${process.pid}_${randomBytes(4).toString("hex")}`;
  let admin: Database;
  let db: Database;
  let url: string;

  beforeAll(async () => {
    admin = await openDatabase({ url: serverUrl, maxConnections: 1 });
    await admin.query(sql`CREATE DATABASE ${ident(name)}`);
    const u = new URL(serverUrl ?? "");
    u.pathname = `/${name}`;
    url = u.toString();
    db = await openDatabase({ url, maxConnections: 2 });
  });

  afterAll(async () => {
    await db?.close();
    await admin?.query(sql`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await admin?.close();
  });

  const count = async (table: string, schema = "public") =>
    (await db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM ${ident(schema, table)}`)).rows[0]?.n;

  it("loads the demo when the catalog tables are missing, and is a no-op the second time", async () => {
    const messages: string[] = [];
    const first = await ensureDemoCatalog(url, { ...SIZE, onProgress: (m) => messages.push(m) });
    expect(first).toMatchObject({ created: true, target: { kind: "postgres" }, counts: { snapshots: SIZE.snapshots } });
    expect(messages).toContain('loading the demo catalog into schema "public"');
    const second = await ensureDemoCatalog(url.replace(/^postgres:/, "postgresql+psycopg:"), SIZE);
    expect(second.created).toBe(false);
    expect(await count("catalog_product_snapshots")).toBe(SIZE.snapshots);
  });

  it("fills the catalog once when several start at the same time", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => ensureDemoCatalog(url, { ...SIZE, schema: "racing" })));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(await count("catalog_product_snapshots", "racing")).toBe(SIZE.snapshots);
    expect(await count("catalog_products", "racing")).toBe(results.find((r) => r.created)?.counts?.sources);
  });

  it("leaves existing catalog tables alone, even empty ones", async () => {
    await db.exec(`CREATE SCHEMA kept; CREATE TABLE kept.catalog_products (id bigint PRIMARY KEY)`);
    const result = await ensureDemoCatalog(url, { ...SIZE, schema: "kept" });
    expect(result.created).toBe(false);
    const { rows } = await db.query(sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'kept'`);
    expect(rows).toEqual([{ table_name: "catalog_products" }]);
  });
});
