/** Whole-metadata operations and metadata against a changed database. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HasuraError } from "../src/engine/errors/index.js";
import { findInconsistencies, pruneAfterSchemaChange } from "../src/engine/metadata/consistency.js";
import { loadMetadataDir } from "../src/engine/metadata/load-dir.js";
import { applyMetadataOperation } from "../src/engine/metadata/operations.js";
import { emptyMetadata, type Metadata } from "../src/engine/metadata/types.js";
import { catalog, deepFreeze, failure, fakeCatalog, run, tableOf, tablesOf, tracked } from "./fixtures/metadata/fake-catalog.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "metadata", "v3");

const linked = (): Metadata =>
  run(
    tracked("author", "article"),
    [
      "create_array_relationship",
      { table: "author", name: "articles", using: { foreign_key_constraint_on: { table: "article", column: "author_id" } } },
    ],
    ["create_object_relationship", { table: "article", name: "author", using: { foreign_key_constraint_on: "author_id" } }],
    [
      "create_select_permission",
      { table: "article", role: "user", permission: { columns: ["id", "title", "content"], filter: { status: { _eq: "published" } } } },
    ],
    ["create_select_permission", { table: "author", role: "user", permission: { columns: ["id", "name"], filter: {} } }],
  ).metadata;

describe("replace / export / clear", () => {
  it("replaces metadata given directly or as {metadata, allow_inconsistent_metadata}, in any version", async () => {
    const fixture = await loadMetadataDir(FIXTURE);
    const consistentPart = { ...fixture, sources: [{ ...fixture.sources[0], tables: tablesOf(linked()) }] } as Metadata;
    expect(run(emptyMetadata(), ["replace_metadata", consistentPart])).toEqual({
      metadata: consistentPart,
      result: { message: "success" },
    });
    const v2 = { version: 2, tables: [{ table: "author" }] };
    const { metadata } = run(emptyMetadata(), ["replace_metadata", { metadata: v2, allow_inconsistent_metadata: false }]);
    expect(tablesOf(metadata)).toEqual([{ table: { schema: "public", name: "author" } }]);
  });

  it("refuses inconsistent metadata unless allowed, then reports it", async () => {
    const fixture = await loadMetadataDir(FIXTURE);
    const source = fixture.sources[0] as Metadata["sources"][number];
    const withGhost = { ...fixture, sources: [{ ...source, tables: [...source.tables, { table: { schema: "public", name: "ghost" } }] }] };
    expect(run(emptyMetadata(), ["replace_metadata", fixture]).metadata).toEqual(fixture);
    let error: unknown;
    try {
      run(emptyMetadata(), ["replace_metadata", withGhost]);
    } catch (e) {
      error = e;
    }
    const ghost = {
      definition: { schema: "public", name: "ghost" },
      name: "table ghost in source default",
      reason: 'Inconsistent object: no such table/view exists in source: "ghost"',
      type: "table",
    };
    expect(error).toBeInstanceOf(HasuraError);
    expect(error).toMatchObject({
      code: "unexpected",
      message: "cannot continue due to inconsistent metadata",
      path: "$.args",
      status: 400,
      details: [ghost],
    });
    const { metadata, result } = run(emptyMetadata(), ["replace_metadata", { metadata: withGhost, allow_inconsistent_metadata: true }]);
    // The fixture's synchronous action and its custom types are served, so only the table is reported.
    expect(result).toEqual({ is_consistent: false, inconsistent_objects: [ghost] });
    expect(tablesOf(metadata)).toHaveLength(5);
  });

  it("exports metadata without the actions SDL, and refuses a malformed replacement", async () => {
    const fixture = await loadMetadataDir(FIXTURE);
    const { result } = applyMetadataOperation(deepFreeze(fixture), "export_metadata", {}, catalog);
    expect(result).toEqual({ ...fixture, actions_graphql: undefined });
    expect(result).not.toHaveProperty("actions_graphql");
    // Re-importing an export keeps the SDL loaded from the project directory.
    const reimported = applyMetadataOperation(fixture, "replace_metadata", result, catalog).metadata;
    expect(reimported.actions_graphql).toBe(fixture.actions_graphql);
    expect(failure(emptyMetadata(), "replace_metadata", { version: 3 })).toMatchObject({
      code: "parse-failed",
      error: 'key "sources" not found',
      path: "$.args",
    });
    expect(failure(emptyMetadata(), "replace_metadata", { version: 7, sources: [] })).toMatchObject({
      code: "parse-failed",
      path: "$.args.version",
    });
  });

  it("clears to an empty default source that keeps its connection settings", async () => {
    const fixture = await loadMetadataDir(FIXTURE);
    const { metadata, result } = run(fixture, ["clear_metadata", {}]);
    expect(result).toEqual({ message: "success" });
    expect(metadata).toEqual({
      version: 3,
      sources: [{ name: "default", kind: "postgres", tables: [], configuration: fixture.sources[0]?.configuration }],
    });
  });

  it("rejects an unknown operation", () => {
    expect(failure(emptyMetadata(), "pg_frobnicate", {})).toMatchObject({
      code: "parse-failed",
      error: 'unknown metadata command "pg_frobnicate"',
    });
  });
});

describe("consistency", () => {
  const gone = fakeCatalog({ "public.article": { columns: { id: "int4", title: "text", status: "text" } } });

  it("reports tables and relationships the database lacks, in Hasura's shape", () => {
    const { result } = run(linked(), ["reload_metadata", {}]);
    expect(result).toEqual({ message: "success", is_consistent: true });
    const objects = findInconsistencies(linked(), gone);
    expect(objects).toEqual([
      {
        definition: { schema: "public", name: "author" },
        name: "table author in source default",
        reason: 'Inconsistent object: no such table/view exists in source: "author"',
        type: "table",
      },
      {
        definition: {
          name: "author",
          using: { foreign_key_constraint_on: "author_id" },
          source: "default",
          table: { schema: "public", name: "article" },
        },
        name: "object_relation author in table article in source default",
        reason: 'Inconsistent object: in table "article": in relationship "author": no foreign constraint exists on the given column(s)',
        type: "object_relation",
      },
      {
        definition: {
          role: "user",
          permission: { columns: ["id", "title", "content"], filter: { status: { _eq: "published" } } },
          source: "default",
          table: { schema: "public", name: "article" },
        },
        name: "permission article.user.select in source default",
        reason: 'Inconsistent object: in table "article": in permission for role "user": column "content" does not exist',
        type: "select_permission",
      },
    ]);
    expect(applyMetadataOperation(linked(), "get_inconsistent_metadata", {}, gone).result).toEqual({
      is_consistent: false,
      inconsistent_objects: objects,
    });
  });

  it("drops inconsistent objects on request", () => {
    const { metadata } = applyMetadataOperation(deepFreeze(linked()), "drop_inconsistent_metadata", {}, gone);
    expect(tablesOf(metadata)).toEqual([{ table: { schema: "public", name: "article" } }]);
  });

  it("after DDL, untracks dropped tables and removes what the change broke", () => {
    const before = linked();
    // author dropped (so article's FK went with it) and article.content dropped.
    const pruned = pruneAfterSchemaChange(deepFreeze(before), catalog, gone);
    expect(tablesOf(pruned).map((t) => t.table.name)).toEqual(["article"]);
    expect(tableOf(pruned, "article")).toEqual({
      table: { schema: "public", name: "article" },
      select_permissions: [{ role: "user", permission: { columns: ["id", "title"], filter: { status: { _eq: "published" } } } }],
    });
    expect(pruneAfterSchemaChange(before, catalog, catalog)).toBe(before);
  });

  it("after DDL, drops a permission whose rule tests a dropped column", () => {
    const noStatus = fakeCatalog({
      "public.author": { columns: { id: "int4", name: "text", created_at: "timestamptz" }, primaryKey: ["id"] },
      "public.article": {
        columns: { id: "int4", title: "text", content: "text", author_id: "int4" },
        foreignKeys: [{ columns: ["author_id"], refSchema: "public", refTable: "author", refColumns: ["id"] }],
      },
    });
    const pruned = pruneAfterSchemaChange(linked(), catalog, noStatus);
    expect(tableOf(pruned, "article")?.select_permissions).toBeUndefined();
    expect(tableOf(pruned, "article")?.object_relationships).toHaveLength(1);
    expect(tableOf(pruned, "author")).toEqual(tableOf(linked(), "author"));
  });

  it("keeps objects that were already inconsistent before the DDL", () => {
    const broken = run(tracked("author"), ["track_table", "article"]).metadata;
    const missingBefore = fakeCatalog({ "public.author": { columns: { id: "int4" } } });
    expect(pruneAfterSchemaChange(broken, missingBefore, missingBefore)).toBe(broken);
  });
});
