/**
 * The admin dispatcher end to end on a real database (PGlite, and PostgreSQL with
 * TEST_DATABASE_URL): metadata in hdb_catalog, run_sql through the catalog's runner, the
 * catalog from introspection, legacy inserts as plain SQL.
 */
import type { Database } from "@platform/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { introspect } from "../src/engine/catalog/introspect.js";
import { runSql } from "../src/engine/catalog/run-sql.js";
import { HasuraError } from "../src/engine/errors/index.js";
import { type MetadataContext, type MetadataEndpoint, runMetadataRequest } from "../src/engine/metadata/api.js";
import { catalogViewOf } from "../src/engine/metadata/catalog-view.js";
import { runLegacyDml } from "../src/engine/metadata/dml.js";
import { MetadataStore } from "../src/engine/metadata/store.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id integer NOT NULL REFERENCES author (id), is_published boolean NOT NULL DEFAULT false);
`;

/** What Hasura's tests-py setup files send to /v1/query. */
const SETUP = {
  type: "bulk",
  args: [
    { type: "run_sql", args: { sql: SCHEMA } },
    { type: "track_table", args: { schema: "public", name: "author" } },
    { type: "track_table", args: { schema: "public", name: "article" } },
    { type: "create_object_relationship", args: { table: "article", name: "author", using: { foreign_key_constraint_on: "author_id" } } },
    {
      type: "create_array_relationship",
      args: { table: "author", name: "articles", using: { foreign_key_constraint_on: { table: "article", column: "author_id" } } },
    },
    {
      type: "create_select_permission",
      args: { table: "article", role: "user", permission: { columns: "*", filter: { is_published: { _eq: true } } } },
    },
    { type: "insert", args: { table: "author", objects: [{ name: "Alice" }, { name: "Bob" }] } },
  ],
};

interface Harness {
  ctx: MetadataContext;
  store: MetadataStore;
  changes: { metadata: Metadata; version: number }[];
  call(endpoint: MetadataEndpoint, body: unknown): Promise<unknown>;
  fail(endpoint: MetadataEndpoint, body: unknown): Promise<{ status: number; code: string; error: string; path: string }>;
}

function harness(handle: TestDatabase): Harness {
  const db: Database = handle.db;
  const store = new MetadataStore(db);
  const changes: { metadata: Metadata; version: number }[] = [];
  const ctx: MetadataContext = {
    store,
    catalog: async () => catalogViewOf(await introspect(db)),
    runSql: (args, check) =>
      runSql(handle.runner, args, check ? { beforeCommit: async (tx) => check(catalogViewOf(await introspect(tx))) } : {}),
    legacyDml: (type, table, args, path) => runLegacyDml(db, type, table, args, path, { "x-hasura-role": "admin" }),
    onMetadataChanged(metadata, version) {
      changes.push({ metadata, version });
    },
  };
  return {
    ctx,
    store,
    changes,
    call: (endpoint, body) => runMetadataRequest(body, ctx, endpoint),
    async fail(endpoint, body) {
      const error = await runMetadataRequest(body, ctx, endpoint).then(
        () => {
          throw new Error("request did not fail");
        },
        (e: unknown) => e,
      );
      if (!(error instanceof HasuraError)) throw error;
      return { status: error.status, code: error.code, error: error.message, path: error.path };
    },
  };
}

const tableNames = (metadata: Metadata) => metadata.sources[0]?.tables.map((t) => t.table.name);

describe.each(testBackends)("metadata API on %s", (backend) => {
  let handle: TestDatabase;
  let h: Harness;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await handle.dispose();
  });
  beforeEach(async () => {
    await handle.db.exec("DROP SCHEMA IF EXISTS hdb_catalog CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    h = harness(handle);
    await h.store.init();
  });

  it("runs a tests-py style /v1/query bulk setup and saves once", async () => {
    const results = await h.call("/v1/query", SETUP);
    expect(results).toEqual([
      { result_type: "CommandOk", result: null },
      ...Array.from({ length: 5 }, () => ({ message: "success" })),
      { affected_rows: 2 },
    ]);
    const stored = await h.store.load();
    expect(stored.resourceVersion).toBe(1);
    expect(tableNames(stored.metadata)).toEqual(["author", "article"]);
    expect(h.changes).toEqual([{ metadata: stored.metadata, version: 1 }]);
  });

  it("keeps a failing bulk's metadata changes out, pointing at the failing step", async () => {
    await h.call("/v1/query", SETUP);
    const before = await h.store.load();
    const error = await h.fail("/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_untrack_table", args: { table: "article", cascade: true } },
        { type: "pg_create_select_permission", args: { table: "author", role: "user", permission: { columns: "*", filter: {} } } },
        { type: "pg_create_object_relationship", args: { table: "author", name: "first", using: { foreign_key_constraint_on: "name" } } },
      ],
    });
    expect(error).toEqual({
      status: 400,
      code: "invalid-configuration",
      error: 'Inconsistent object: in table "author": in relationship "first": no foreign constraint exists on the given column(s)',
      path: "$.args[2].args",
    });
    expect(await h.store.load()).toEqual(before);
    expect(h.changes).toHaveLength(1);
  });

  it("leaves executed SQL in place when a later step fails, and untracks what it dropped", async () => {
    await h.call("/v1/query", SETUP);
    const error = await h.fail("/v1/query", {
      type: "bulk",
      args: [
        { type: "run_sql", args: { sql: "CREATE TABLE tag (id serial PRIMARY KEY); DROP TABLE article;", cascade: true } },
        { type: "track_table", args: { schema: "public", name: "tag" } },
        { type: "track_table", args: { schema: "public", name: "nope" } },
      ],
    });
    expect(error).toEqual({
      status: 400,
      code: "not-exists",
      error: 'no such table/view exists in source: "nope"',
      path: "$.args[2].args",
    });
    const stored = await h.store.load();
    // tag exists but its track_table was rolled back with the bulk; article was dropped by SQL.
    expect(tableNames(stored.metadata)).toEqual(["author"]);
    expect(stored.metadata.sources[0]?.tables[0]).toEqual({ table: { schema: "public", name: "author" } });
    expect(stored.resourceVersion).toBe(2);
    const catalog = await h.ctx.catalog();
    expect(catalog.hasTable("public", "tag")).toBe(true);
  });

  it("refuses DDL that would drop relationships or permissions unless cascade is set, rolling the SQL back", async () => {
    await h.call("/v1/query", SETUP);
    expect(await h.fail("/v2/query", { type: "run_sql", args: { sql: "ALTER TABLE article DROP COLUMN author_id" } })).toEqual({
      status: 400,
      code: "dependency-error",
      error:
        'cannot drop due to the following dependent objects : relationship article.author in source "default", relationship author.articles in source "default"',
      path: "$",
    });
    expect((await h.ctx.catalog()).columns("public", "article")).toContain("author_id");
    expect((await h.store.load()).resourceVersion).toBe(1);
    // A tracked table with nothing depending on it is simply untracked.
    await h.call("/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE lonely (id int)" } });
    await h.call("/v1/metadata", { type: "pg_track_table", args: { table: "lonely" } });
    await h.call("/v2/query", { type: "run_sql", args: { sql: "DROP TABLE lonely" } });
    expect(tableNames((await h.store.load()).metadata)).toEqual(["author", "article"]);
  });

  it("follows DDL from /v2/query run_sql with cascade: dropped tables and broken relationships leave metadata", async () => {
    await h.call("/v1/query", SETUP);
    const result = await h.call("/v2/query", {
      type: "run_sql",
      args: { sql: "ALTER TABLE article DROP COLUMN author_id; SELECT 1 AS one;", cascade: true },
    });
    expect(result).toEqual({ result_type: "TuplesOk", result: [["one"], ["1"]] });
    const { metadata, resourceVersion } = await h.store.load();
    expect(resourceVersion).toBe(2);
    expect(metadata.sources[0]?.tables).toEqual([
      { table: { schema: "public", name: "author" } },
      {
        table: { schema: "public", name: "article" },
        select_permissions: [{ role: "user", permission: { columns: "*", filter: { is_published: { _eq: true } } } }],
      },
    ]);
    await h.call("/v2/query", { type: "bulk", args: [{ type: "run_sql", args: { sql: "DROP TABLE article", cascade: true } }] });
    expect(tableNames((await h.store.load()).metadata)).toEqual(["author"]);
  });

  it("does not save for read-only requests", async () => {
    await h.call("/v1/query", SETUP);
    await h.call("/v2/query", { type: "run_sql", args: { sql: "SELECT 1", read_only: true } });
    const exported = (await h.call("/v1/metadata", { type: "export_metadata", args: {} })) as Metadata;
    expect(tableNames(exported)).toEqual(["author", "article"]);
    expect(await h.call("/v1/metadata", { type: "export_metadata", version: 2, args: {} })).toEqual({
      resource_version: 1,
      metadata: exported,
    });
    expect(await h.call("/v1/metadata", { type: "get_inconsistent_metadata", args: {} })).toEqual({ is_consistent: true });
    expect((await h.store.load()).resourceVersion).toBe(1);
  });

  it("checks resource_version on /v1/metadata and answers 409 when stale", async () => {
    await h.call("/v1/query", SETUP);
    const body = { type: "pg_set_table_is_enum", resource_version: 0, args: { table: "author", is_enum: false } };
    expect(await h.fail("/v1/metadata", body)).toEqual({
      status: 409,
      code: "conflict",
      error: "metadata resource version referenced (0) did not match current version",
      path: "$",
    });
    expect(await h.call("/v1/metadata", { ...body, resource_version: 1 })).toEqual({ message: "success" });
    expect(await h.store.currentVersion()).toBe(2);
  });

  it("serialises concurrent requests in one process and retries across instances", async () => {
    await h.call("/v1/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE t1 (id int); CREATE TABLE t2 (id int); CREATE TABLE t3 (id int); CREATE TABLE t4 (id int);" },
    });
    const other = harness(handle);
    const track = (name: string) => ({ type: "pg_track_table", args: { table: name } });
    await Promise.all([
      h.call("/v1/metadata", track("t1")),
      other.call("/v1/metadata", track("t2")),
      h.call("/v1/metadata", track("t3")),
      other.call("/v1/metadata", track("t4")),
    ]);
    const { metadata, resourceVersion } = await h.store.load();
    expect(tableNames(metadata)?.sort()).toEqual(["t1", "t2", "t3", "t4"]);
    expect(resourceVersion).toBe(5);
  });

  it("retries a request without side effects when another instance saved in between", async () => {
    await h.call("/v1/query", { type: "run_sql", args: { sql: "CREATE TABLE t1 (id int); CREATE TABLE t2 (id int);" } });
    const other = harness(handle);
    let release: () => void = () => {};
    const firstDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    let catalogCalls = 0;
    const realCatalog = other.ctx.catalog;
    // The other instance loads version 1, then waits while this one saves version 2.
    other.ctx.catalog = async () => {
      catalogCalls++;
      await firstDone;
      return realCatalog();
    };
    const slow = other.call("/v1/metadata", { type: "pg_track_table", args: { table: "t2" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await h.call("/v1/metadata", { type: "pg_track_table", args: { table: "t1" } });
    release();
    expect(await slow).toEqual({ message: "success" });
    expect(catalogCalls).toBe(2);
    const { metadata, resourceVersion } = await h.store.load();
    expect(tableNames(metadata)).toEqual(["t1", "t2"]);
    expect(resourceVersion).toBe(3);
  });

  it("answers Hasura's errors for unknown types, bad bodies and unsupported legacy queries", async () => {
    expect(await h.fail("/v1/metadata", { type: "run_sql", args: { sql: "SELECT 1" } })).toMatchObject({
      code: "parse-failed",
      error: 'unknown metadata command "run_sql"; "run" was not recognized as a valid backend name',
      path: "$",
    });
    expect((await h.fail("/v1/metadata", { type: "pg_frobnicate", args: {} })).error).toBe(
      'unknown metadata command "frobnicate" for backend "postgres"',
    );
    expect((await h.fail("/v2/query", { type: "track_table", args: {} })).error).toBe('unknown query type "track_table"');
    expect(await h.fail("/v1/query", { type: "select", args: { table: "author", columns: ["*"] } })).toMatchObject({
      status: 400,
      code: "not-exists",
    });
    expect(await h.fail("/v1/metadata", [])).toMatchObject({
      code: "parse-failed",
      error: "expected Object, but encountered Array",
      path: "$",
    });
    expect(await h.fail("/v1/metadata", { args: {} })).toMatchObject({ code: "parse-failed", error: 'key "type" not found', path: "$" });
    expect(await h.fail("/v1/metadata", { type: "pg_track_table" })).toMatchObject({ error: 'key "args" not found', path: "$" });
    expect(await h.fail("/v1/query", { type: "insert", args: { table: "author", objects: [{ name: "x" }] } })).toMatchObject({
      code: "not-exists",
      error: 'table "author" does not exist in source: default',
      path: "$.args",
    });
  });

  it("runs the legacy data operations on tracked tables: insert, update, delete, select and count", async () => {
    await h.call("/v1/query", SETUP);
    const q = (type: string, args: Record<string, unknown>) => h.call("/v1/query", { type, args });
    expect(await q("insert", { table: "author", objects: [{ name: "Carol" }], returning: ["name"] })).toEqual({
      affected_rows: 1,
      returning: [{ name: "Carol" }],
    });
    expect(await q("update", { table: "author", where: { name: "Alice" }, $set: { name: "Alicia" }, returning: ["name"] })).toEqual({
      affected_rows: 1,
      returning: [{ name: "Alicia" }],
    });
    expect(await q("count", { table: "author", where: { $or: [{ name: { $like: "Ali%" } }, { name: { _eq: "Bob" } }] } })).toEqual({
      count: 2,
    });
    expect(await q("select", { table: "author", columns: ["name"], where: { name: { $nin: ["Bob"] } }, order_by: ["-name"] })).toEqual([
      { name: "Carol" },
      { name: "Alicia" },
    ]);
    expect(await q("delete", { table: "author", where: { name: { $in: ["Carol", "Bob"] } } })).toEqual({ affected_rows: 2 });
    expect(await q("select", { table: "author", columns: ["name"], limit: 5 })).toEqual([{ name: "Alicia" }]);
    // Bad input: Hasura's error shape, nothing sent to the database.
    expect(await h.fail("/v1/query", { type: "update", args: { table: "author", where: { nope: 1 }, $set: { name: "x" } } })).toMatchObject(
      { status: 400, code: "not-exists", error: 'no such column exists: "nope"', path: "$.args.where.nope" },
    );
    // A value the column refuses: the database's refusal in Hasura's shape, not a 500.
    expect(
      await h.fail("/v1/query", { type: "insert", args: { table: "article", objects: [{ title: "t", author_id: "x" }] } }),
    ).toMatchObject({ status: 400, code: "data-exception" });
    expect(await h.fail("/v1/query", { type: "delete", args: { table: "author" } })).toMatchObject({
      code: "parse-failed",
      error: 'key "where" not found',
    });
    expect(
      await h.fail("/v1/query", { type: "update", args: { table: "author", where: {}, $set: { name: { $gt: 1 } }, $append: {} } }),
    ).toMatchObject({
      code: "parse-failed",
      path: "$['$append']",
    });
    expect(await q("count", { table: "author" })).toEqual({ count: 1 });
  });

  // graphql_query/basic/setup_invalid_fkey_relationship.yaml, sent after the basic setup, expects 400.
  it("rejects Hasura's invalid-fkey fixture with 400", async () => {
    await h.call("/v1/query", SETUP);
    const error = await h.fail("/v1/query", {
      type: "create_array_relationship",
      args: { table: "author", name: "articles2", using: { foreign_key_constraint_on: "I should have been an object" } },
    });
    // /v1/query reports parse failures without `.args` (Hasura's legacy query parser).
    expect(error).toMatchObject({ status: 400, code: "parse-failed", path: "$.using.foreign_key_constraint_on" });
  });

  it("keeps going with bulk_keep_going, reporting each failure in place", async () => {
    await h.call("/v1/query", SETUP);
    const results = await h.call("/v1/metadata", {
      type: "bulk_keep_going",
      args: [
        { type: "pg_track_table", args: { table: "author" } },
        { type: "pg_create_select_permission", args: { table: "author", role: "user", permission: { columns: "*", filter: {} } } },
      ],
    });
    expect(results).toEqual([
      { code: "already-tracked", error: 'view/table already tracked: "author"', path: "$.args[0].args" },
      { message: "success" },
    ]);
    expect((await h.store.load()).metadata.sources[0]?.tables[0]?.select_permissions).toHaveLength(1);
  });

  it("replaces and clears metadata through the API", async () => {
    await h.call("/v1/query", SETUP);
    const exported = await h.call("/v1/metadata", { type: "export_metadata", args: {} });
    expect(await h.call("/v1/metadata", { type: "clear_metadata", args: {} })).toEqual({ message: "success" });
    expect(tableNames((await h.store.load()).metadata)).toEqual([]);
    expect(await h.call("/v1/metadata", { type: "replace_metadata", args: exported })).toEqual({ message: "success" });
    expect((await h.store.load()).metadata).toEqual(exported);
    expect(await h.call("/v1/metadata", { type: "reload_metadata", args: { reload_remote_schemas: true } })).toEqual({
      message: "success",
      is_consistent: true,
    });
    expect(await h.store.currentVersion()).toBe(4);
  });
});
