/** Hasura migrations directories applied on PGlite and (with TEST_DATABASE_URL) PostgreSQL. */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, sql } from "@platform/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { appliedHasuraMigrations, applyHasuraMigrations, readHasuraMigrations, sqlOfUpYaml } from "../src/engine/metadata/migrations.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "metadata");
const V3 = join(FIXTURES, "migrations-v3");
const FLAT = join(FIXTURES, "migrations-flat");

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function copyOf(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), "hasura-migrations-"));
  temporary.push(copy);
  cpSync(dir, copy, { recursive: true });
  return copy;
}

async function tables(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

describe("reading migrations directories", () => {
  it("reads the per-database v3 layout in version order, with no SQL for a down-only version", () => {
    expect(readHasuraMigrations(V3).map((m) => [m.version, m.name, m.sql === null])).toEqual([
      [1700000000000, "init", false],
      [1700000000100, "create_article", false],
      [1700000000200, "drop_only", true],
    ]);
    expect(readHasuraMigrations(V3, { database: "other" }).map((m) => m.version)).toEqual([1700000000050]);
  });

  it("reads the flat layout: folders, .up.sql files, and the run_sql steps of .up.yaml files", () => {
    const migrations = readHasuraMigrations(FLAT);
    expect(migrations.map((m) => [m.version, m.name])).toEqual([
      [1600000000000, "init"],
      [1600000000100, "create_article"],
      [1600000000200, "track_tables"],
    ]);
    expect(migrations[1]?.sql).toContain("CREATE TABLE article");
    expect(migrations[2]?.sql).toBe("CREATE TABLE tag (id serial PRIMARY KEY, label text NOT NULL)");
  });

  it("collects run_sql inside bulk and ignores metadata steps", () => {
    const text =
      "type: bulk\nargs:\n- type: run_sql\n  args: {sql: 'SELECT 1'}\n- type: track_table\n  args: {name: x}\n- type: run_sql\n  args: {sql: 'SELECT 2'}\n";
    expect(sqlOfUpYaml(text)).toBe("SELECT 1;\nSELECT 2");
    expect(sqlOfUpYaml("- type: track_table\n  args: {name: x}\n")).toBeNull();
  });

  it("refuses a missing directory and duplicate versions", () => {
    expect(() => readHasuraMigrations(join(FIXTURES, "nope"))).toThrow(/does not exist/);
    const dir = copyOf(FLAT);
    writeFileSync(join(dir, "1600000000000_again.up.sql"), "SELECT 1;");
    expect(() => readHasuraMigrations(dir)).toThrow(/two migrations share version 1600000000000/);
  });
});

describe.each(testBackends)("applyHasuraMigrations on %s", (backend) => {
  let handle: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    db = handle.db;
  });
  afterAll(async () => {
    await handle.dispose();
  });
  afterEach(async () => {
    await db.exec("DROP SCHEMA IF EXISTS hdb_catalog CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  });

  it("applies pending versions once, in order, recording them in hdb_catalog.schema_migrations", async () => {
    expect(await applyHasuraMigrations(db, V3)).toEqual([1700000000000, 1700000000100, 1700000000200]);
    expect(await tables(db)).toEqual(["article", "author"]);
    const { rows } = await db.query<{ version: number; dirty: boolean }>(
      sql`SELECT version, dirty FROM hdb_catalog.schema_migrations ORDER BY version`,
    );
    expect(rows).toEqual([
      { version: 1700000000000, dirty: false },
      { version: 1700000000100, dirty: false },
      { version: 1700000000200, dirty: false },
    ]);
    expect(await applyHasuraMigrations(db, V3)).toEqual([]);
    const { rows: authors } = await db.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM author`);
    expect(authors[0]?.count).toBe(2);
  });

  it("applies the flat layout and only the new version after one is added", async () => {
    const dir = copyOf(FLAT);
    expect(await applyHasuraMigrations(db, dir)).toEqual([1600000000000, 1600000000100, 1600000000200]);
    mkdirSync(join(dir, "1600000000300_add_bio"));
    writeFileSync(join(dir, "1600000000300_add_bio", "up.sql"), "ALTER TABLE author ADD COLUMN bio text;");
    expect(await applyHasuraMigrations(db, dir)).toEqual([1600000000300]);
    expect(await appliedHasuraMigrations(db)).toEqual([1600000000000, 1600000000100, 1600000000200, 1600000000300]);
    expect(await tables(db)).toEqual(["article", "author", "tag"]);
  });

  it("picks the database folder named by the option", async () => {
    expect(await applyHasuraMigrations(db, V3, { database: "other" })).toEqual([1700000000050]);
    expect(await tables(db)).toEqual(["other_thing"]);
  });

  it("rolls a failing migration back entirely and keeps the versions before it", async () => {
    const dir = copyOf(FLAT);
    writeFileSync(join(dir, "1600000000150_broken.up.sql"), "CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;");
    await expect(applyHasuraMigrations(db, dir)).rejects.toThrow(/migration 1600000000150_broken failed: .*no_such_table/);
    expect(await appliedHasuraMigrations(db)).toEqual([1600000000000, 1600000000100]);
    expect(await tables(db)).toEqual(["article", "author"]);
  });

  it("stops at a version left dirty by Hasura's CLI", async () => {
    await applyHasuraMigrations(db, FLAT);
    await db.query(sql`UPDATE hdb_catalog.schema_migrations SET dirty = true WHERE version = ${1600000000100}`);
    await expect(applyHasuraMigrations(db, V3)).rejects.toThrow(/1600000000100 is marked dirty/);
  });

  it("applies each version exactly once when several instances start together", async () => {
    const runs = await Promise.all([applyHasuraMigrations(db, V3), applyHasuraMigrations(db, V3), applyHasuraMigrations(db, V3)]);
    expect(runs.flat().sort()).toEqual([1700000000000, 1700000000100, 1700000000200]);
    expect(await appliedHasuraMigrations(db)).toEqual([1700000000000, 1700000000100, 1700000000200]);
  });
});
