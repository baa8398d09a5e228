/** Tracking tables and functions, enum tables, customisation and computed fields. */
import { describe, expect, it } from "vitest";
import { emptyMetadata } from "../src/engine/metadata/types.js";
import { failure, run, tableOf, tablesOf, tracked } from "./fixtures/metadata/fake-catalog.js";

describe("track_table", () => {
  it("accepts the v1 {schema, name}, v2 {table, configuration}, bare-name and pg_ forms", () => {
    const { metadata, result } = run(
      emptyMetadata(),
      ["track_table", { schema: "public", name: "author" }],
      [
        "pg_track_table",
        { source: "default", table: { schema: "library", name: "publisher" }, configuration: { custom_name: "Publisher" } },
      ],
      ["track_table", "article"],
      ["track_table", { table: "article_status", is_enum: true }],
    );
    expect(result).toEqual({ message: "success" });
    expect(tablesOf(metadata)).toEqual([
      { table: { schema: "public", name: "author" } },
      { table: { schema: "library", name: "publisher" }, configuration: { custom_name: "Publisher" } },
      { table: { schema: "public", name: "article" } },
      { table: { schema: "public", name: "article_status" }, is_enum: true },
    ]);
  });

  it("normalises legacy custom_column_names in the configuration", () => {
    const { metadata } = run(emptyMetadata(), [
      "track_table",
      {
        table: { schema: "public", name: "author" },
        configuration: { custom_column_names: { created_at: "createdAt" }, custom_root_fields: {} },
      },
    ]);
    expect(tableOf(metadata, "author")?.configuration).toEqual({
      column_config: { created_at: { custom_name: "createdAt" } },
      custom_column_names: { created_at: "createdAt" },
    });
  });

  it("answers Hasura's errors: already tracked, no such table, unknown source, function clash", () => {
    const metadata = run(tracked("author"), ["track_function", { schema: "public", name: "search_articles" }]).metadata;
    expect(failure(metadata, "track_table", { schema: "public", name: "author" })).toEqual({
      code: "already-tracked",
      error: 'view/table already tracked: "author"',
      path: "$.args",
      status: 400,
    });
    expect(failure(metadata, "pg_track_table", { table: { schema: "library", name: "nope" } })).toEqual({
      code: "not-exists",
      error: 'no such table/view exists in source: "library.nope"',
      path: "$.args",
      status: 400,
    });
    expect(failure(metadata, "pg_track_table", { source: "other", table: "author" })).toMatchObject({
      code: "not-exists",
      error: 'source with name "other" does not exist',
    });
    expect(failure(metadata, "track_table", { table: "search_articles" })).toMatchObject({
      code: "not-supported",
      error: 'function with name "search_articles" already exists',
    });
  });

  it("rejects malformed arguments as parse-failed at the offending path", () => {
    expect(failure(emptyMetadata(), "track_table", { schema: "public" })).toEqual({
      code: "parse-failed",
      error: 'key "name" not found',
      path: "$.args",
      status: 400,
    });
    expect(failure(emptyMetadata(), "pg_track_table", { table: { name: 5 } })).toMatchObject({
      code: "parse-failed",
      error: "expected String, but encountered Number",
      path: "$.args.table.name",
    });
    expect(failure(emptyMetadata(), "pg_track_table", undefined)).toMatchObject({
      code: "parse-failed",
      error: 'key "args" not found',
      path: "$",
    });
  });

  // Like Hasura, an invalid key stays among the "other" columns it counts.
  it("checks enum tables the way Hasura words it, one reason or a list", () => {
    expect(failure(emptyMetadata(), "track_table", { table: "author", is_enum: true })).toEqual({
      code: "invalid-configuration",
      error:
        'Inconsistent object: the table "author" cannot be used as an enum for the following reasons:\n' +
        '  • the table’s primary key ("id") must have type "text", not type "integer"\n' +
        "  • the table must have exactly one primary key and optionally one comment column, not 3 columns (created_at, id, name)\n",
      path: "$.args",
      status: 400,
    });
    expect(failure(emptyMetadata(), "track_table", { table: "no_key", is_enum: true }).error).toBe(
      'Inconsistent object: the table "no_key" cannot be used as an enum for the following reasons:\n' +
        "  • the table must have a primary key\n" +
        '  • the table’s comment column ("label") must have type "text", not type "integer"\n',
    );
    expect(failure(tracked("two_comments"), "set_table_is_enum", { table: "two_comments", is_enum: true }).error).toBe(
      'Inconsistent object: the table "two_comments" cannot be used as an enum because the table must have exactly one primary key and optionally one comment column, not 2 columns (a, b)',
    );
    expect(failure(tracked("multi_author"), "set_table_is_enum", { table: "multi_author", is_enum: true }).error).toContain(
      "  • the table’s primary key must not span multiple columns (id1, id2)\n",
    );
  });
});

describe("pg_track_tables / pg_untrack_tables", () => {
  const table = (name: string) => ({ table: { schema: "public", name } });

  it("tracks each table, the ones that fail reported as warnings", () => {
    const { metadata, result } = run(tracked("author"), [
      "pg_track_tables",
      { tables: [table("author"), table("article"), table("nope")] },
    ]);
    expect(result).toEqual({
      message: "success",
      warnings: [
        {
          code: "track-table-failed",
          message: 'view/table already tracked: "author"',
          name: "table public.author in source default",
          type: "table",
        },
        {
          code: "track-table-failed",
          message: 'Inconsistent object: no such table/view exists in source: "nope"',
          name: "table public.nope in source default",
          type: "table",
        },
      ],
    });
    expect(tablesOf(metadata).map((t) => t.table)).toEqual([
      { schema: "public", name: "author" },
      { schema: "public", name: "article" },
    ]);
    expect(run(metadata, ["pg_untrack_tables", { tables: [table("article"), table("publisher")] }]).result).toMatchObject({
      message: "success",
      warnings: [{ code: "untrack-table-failed", message: 'view/table already untracked: "publisher"' }],
    });
  });

  it("refuses the whole command when warnings are not allowed, or when every table fails", () => {
    const metadata = tracked("author");
    expect(failure(metadata, "pg_track_tables", { tables: [table("article"), table("author")], allow_warnings: false })).toMatchObject({
      code: "metadata-warnings",
      error: "failed due to metadata warnings",
      path: "$.args",
    });
    expect(failure(metadata, "pg_track_tables", { tables: [table("author")] })).toMatchObject({
      code: "invalid-configuration",
      error: "all tables failed to track",
    });
    expect(failure(metadata, "pg_track_tables", { tables: {} })).toMatchObject({ code: "parse-failed", path: "$.args.tables" });
  });
});

describe("untrack_table", () => {
  const linked = () =>
    run(
      tracked("author", "article"),
      [
        "create_array_relationship",
        { table: "author", name: "articles", using: { foreign_key_constraint_on: { table: "article", column: "author_id" } } },
      ],
      ["create_object_relationship", { table: "article", name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      [
        "create_select_permission",
        { table: "article", role: "user", permission: { columns: "*", filter: { author: { id: { _eq: "X-Hasura-User-Id" } } } } },
      ],
    ).metadata;

  it("removes the table with everything on it", () => {
    const { metadata } = run(linked(), ["pg_untrack_table", { table: { schema: "public", name: "article" }, cascade: true }]);
    expect(tablesOf(metadata).map((t) => t.table.name)).toEqual(["author"]);
    // author.articles pointed at article: cascaded away.
    expect(tableOf(metadata, "author")?.array_relationships).toBeUndefined();
  });

  it("refuses while other tables' relationships point at it, unless cascade", () => {
    expect(failure(linked(), "untrack_table", { table: "author" })).toEqual({
      code: "dependency-error",
      error: 'cannot drop due to the following dependent objects: relationship article.author in source "default"',
      path: "$.args",
      status: 400,
    });
    const { metadata } = run(linked(), ["untrack_table", { table: "author", cascade: true }]);
    // article.author went, and with it the permission that filtered through it.
    expect(tablesOf(metadata)).toEqual([{ table: { schema: "public", name: "article" } }]);
  });

  it("answers already-untracked for an untracked table", () => {
    expect(failure(tracked("author"), "untrack_table", { table: { schema: "library", name: "publisher" } })).toEqual({
      code: "already-untracked",
      error: 'view/table already untracked: "library.publisher"',
      path: "$.args",
      status: 400,
    });
  });
});

describe("table settings", () => {
  it("sets and unsets is_enum", () => {
    const on = run(tracked("article_status"), ["pg_set_table_is_enum", { table: "article_status", is_enum: true }]).metadata;
    expect(tableOf(on, "article_status")?.is_enum).toBe(true);
    const off = run(on, ["set_table_is_enum", { table: "article_status", is_enum: false }]).metadata;
    expect(tableOf(off, "article_status")).toEqual({ table: { schema: "public", name: "article_status" } });
    expect(failure(emptyMetadata(), "set_table_is_enum", { table: "article_status", is_enum: true })).toMatchObject({
      code: "not-exists",
      error: 'table "article_status" does not exist in source: default',
    });
  });

  it("replaces the whole configuration with set_table_customization", () => {
    const configuration = {
      custom_name: "Writer",
      custom_root_fields: { select: "writers" },
      column_config: { name: { custom_name: "fullName" } },
    };
    const set = run(tracked("author"), ["pg_set_table_customization", { table: "author", configuration }]).metadata;
    expect(tableOf(set, "author")?.configuration).toEqual({ ...configuration, custom_column_names: { name: "fullName" } });
    const cleared = run(set, ["pg_set_table_customization", { table: "author", configuration: {} }]).metadata;
    expect(tableOf(cleared, "author")?.configuration).toBeUndefined();
  });

  it("keeps the custom name and column comments with legacy set_table_custom_fields", () => {
    const start = run(tracked("author"), [
      "pg_set_table_customization",
      { table: "author", configuration: { custom_name: "Writer", column_config: { name: { comment: "full name", custom_name: "old" } } } },
    ]).metadata;
    const { metadata } = run(start, [
      "set_table_custom_fields",
      { table: "author", custom_root_fields: { select_by_pk: "writerById" }, custom_column_names: { name: "fullName" } },
    ]);
    expect(tableOf(metadata, "author")?.configuration).toEqual({
      custom_name: "Writer",
      custom_root_fields: { select_by_pk: "writerById" },
      column_config: { name: { comment: "full name", custom_name: "fullName" } },
      custom_column_names: { name: "fullName" },
    });
  });

  it("stores computed fields and refuses duplicates and unknown ones", () => {
    const definition = { function: "author_articles", table_argument: "author_row" };
    const { metadata } = run(tracked("author"), ["add_computed_field", { table: "author", name: "article_count", definition }]);
    expect(tableOf(metadata, "author")?.computed_fields).toEqual([
      { name: "article_count", definition: { function: { schema: "public", name: "author_articles" }, table_argument: "author_row" } },
    ]);
    expect(failure(metadata, "add_computed_field", { table: "author", name: "article_count", definition })).toEqual({
      code: "already-exists",
      error: 'field with name "article_count" already exists in table "author"',
      path: "$.args",
      status: 400,
    });
    expect(failure(metadata, "add_computed_field", { table: "author", name: "name", definition }).code).toBe("already-exists");
    const dropped = run(metadata, ["pg_drop_computed_field", { table: "author", name: "article_count" }]).metadata;
    expect(tableOf(dropped, "author")).toEqual({ table: { schema: "public", name: "author" } });
    expect(failure(dropped, "drop_computed_field", { table: "author", name: "article_count" })).toMatchObject({
      code: "not-exists",
      error: 'computed field "article_count" does not exist',
    });
  });
});

describe("track_function / untrack_function", () => {
  it("tracks in both argument forms and untracks", () => {
    const v1 = run(emptyMetadata(), ["track_function", { schema: "public", name: "search_articles" }]).metadata;
    const v2 = run(emptyMetadata(), ["pg_track_function", { function: "search_articles", source: "default", configuration: {} }]).metadata;
    expect(v1).toEqual(v2);
    expect(v1.sources[0]?.functions).toEqual([{ function: { schema: "public", name: "search_articles" } }]);
    const { metadata } = run(v1, ["pg_untrack_function", { function: { schema: "public", name: "search_articles" } }]);
    expect(metadata.sources[0]?.functions).toBeUndefined();
  });

  it("refuses duplicates, missing functions, table clashes and untracking twice", () => {
    const metadata = run(tracked("author"), ["track_function", { schema: "public", name: "search_articles" }]).metadata;
    expect(failure(metadata, "track_function", { name: "search_articles", schema: "public" })).toMatchObject({
      code: "already-tracked",
      error: 'function already tracked: "search_articles"',
    });
    expect(failure(metadata, "track_function", { schema: "public", name: "nope" })).toMatchObject({
      code: "not-exists",
      error: 'no such function exists in source: "nope"',
    });
    expect(failure(metadata, "track_function", { schema: "public", name: "author" })).toMatchObject({
      code: "not-supported",
      error: 'table with name "author" already exists',
    });
    expect(failure(tracked(), "untrack_function", { schema: "public", name: "search_articles" })).toMatchObject({
      code: "not-exists",
      error: 'function not found in metadata: "search_articles"',
    });
  });
});
