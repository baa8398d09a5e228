import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Database, ident, type MigrateOptions, migrate, readMigrations, sql } from "../src/index.js";
import { dropSchema, open, type Target, targets, uniqueSchema } from "./targets.js";

describe("readMigrations", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "core-migrations-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads numbered SQL files in numeric order and ignores everything else", () => {
    writeFileSync(join(dir, "10_later.sql"), "SELECT 10;");
    writeFileSync(join(dir, "0002_second-step.sql"), "SELECT 2;");
    writeFileSync(join(dir, "0001_first.sql"), "SELECT 1;");
    writeFileSync(join(dir, "README.md"), "notes");
    writeFileSync(join(dir, "0003_draft.sql.bak"), "SELECT 3;");
    const migrations = readMigrations(dir);
    expect(migrations.map((m) => [m.version, m.name, m.sql])).toEqual([
      [1, "first", "SELECT 1;"],
      [2, "second-step", "SELECT 2;"],
      [10, "later", "SELECT 10;"],
    ]);
    expect(migrations[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses two files with the same version", () => {
    writeFileSync(join(dir, "0001_a.sql"), "SELECT 1;");
    writeFileSync(join(dir, "1_b.sql"), "SELECT 1;");
    expect(() => readMigrations(dir)).toThrow(/share version 1/);
  });
});

describe.each(targets)("migrate on $name", (target: Target) => {
  let db: Database;
  let dir: string;
  let schema: string;
  const schemas: string[] = [];

  beforeAll(async () => {
    db = await open(target);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "core-migrate-"));
    schema = uniqueSchema("core_migrate");
    schemas.push(schema);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => {
    for (const s of schemas) await dropSchema(db, s);
    await db.close();
  });

  // Files say `{{s}}` for the test's schema, so that runs and parallel files never share objects.
  const options = (): MigrateOptions => ({ schema, substitute: (text) => text.replaceAll("{{s}}", `"${schema}"`) });
  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);
  const run = (on: Database = db) => migrate(on, readMigrations(dir), options());
  const recorded = async () =>
    (
      await db.query<{ version: number; name: string }>(
        sql`SELECT version, name FROM ${ident(schema, "schema_migrations")} ORDER BY version`,
      )
    ).rows;
  const exists = async (table: string) =>
    (await db.query<{ t: string | null }>(sql`SELECT to_regclass(${`"${schema}".${table}`})::text AS t`)).rows[0]?.t !== null;
  const values = async () => (await db.query<{ v: string }>(sql`SELECT v FROM ${ident(schema, "log")} ORDER BY id`)).rows.map((r) => r.v);

  it("applies files in order and records each version", async () => {
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL);");
    file("0002_first.sql", "INSERT INTO {{s}}.log (v) VALUES ('two');");
    file("10_second.sql", "INSERT INTO {{s}}.log (v) VALUES ('ten'); INSERT INTO {{s}}.log (v) VALUES ('ten again');");
    expect(await run()).toEqual([1, 2, 10]);
    expect(await values()).toEqual(["two", "ten", "ten again"]);
    expect(await recorded()).toEqual([
      { version: 1, name: "log" },
      { version: 2, name: "first" },
      { version: 10, name: "second" },
    ]);
  });

  it("applies nothing on a re-run, and a new file on the next run", async () => {
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL);");
    file("0002_one.sql", "INSERT INTO {{s}}.log (v) VALUES ('one');");
    expect(await run()).toEqual([1, 2]);
    expect(await run()).toEqual([]);
    file("0003_two.sql", "INSERT INTO {{s}}.log (v) VALUES ('two');");
    expect(await run()).toEqual([3]);
    expect(await run()).toEqual([]);
    expect(await values()).toEqual(["one", "two"]);
  });

  it("leaves nothing of a failing migration and stops there", async () => {
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL);");
    file("0002_broken.sql", "CREATE TABLE {{s}}.half (x int); INSERT INTO {{s}}.log (v) VALUES ('half'); SELECT 1 / 0;");
    file("0003_after.sql", "INSERT INTO {{s}}.log (v) VALUES ('after');");
    await expect(run()).rejects.toThrow(/division by zero/);
    expect(await recorded()).toEqual([{ version: 1, name: "log" }]);
    expect(await exists("half")).toBe(false);
    expect(await values()).toEqual([]);

    file("0002_broken.sql", "INSERT INTO {{s}}.log (v) VALUES ('fixed');");
    expect(await run()).toEqual([2, 3]);
    expect(await values()).toEqual(["fixed", "after"]);
  });

  it("refuses a file that changed after it was applied", async () => {
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL);");
    expect(await run()).toEqual([1]);
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL, extra int);");
    file("0002_next.sql", "INSERT INTO {{s}}.log (v) VALUES ('next');");
    await expect(run()).rejects.toThrow("migration 1_log was changed after it was applied");
    expect(await recorded()).toEqual([{ version: 1, name: "log" }]);
  });

  it("applies each migration once when two instances migrate at the same time", async () => {
    // Not idempotent on purpose: a second application would fail or add a row.
    file("0001_log.sql", "CREATE TABLE {{s}}.log (id serial PRIMARY KEY, v text NOT NULL UNIQUE);");
    file("0002_a.sql", "INSERT INTO {{s}}.log (v) VALUES ('a'); SELECT pg_sleep(0.05);");
    file("0003_b.sql", "INSERT INTO {{s}}.log (v) VALUES ('b');");
    // A server gets a second pool, as a second process would have; PGlite has one engine per process.
    const other = target.name === "postgres" ? await open(target) : db;
    try {
      const [first, second] = await Promise.all([run(db), run(other)]);
      expect([...first, ...second].sort()).toEqual([1, 2, 3]);
    } finally {
      if (other !== db) await other.close();
    }
    expect(await values()).toEqual(["a", "b"]);
    expect((await recorded()).map((r) => r.version)).toEqual([1, 2, 3]);
  });
});
