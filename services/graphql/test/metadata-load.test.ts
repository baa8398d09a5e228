/** Loading Hasura project metadata directories (v3 with !include, v2 tables.yaml, v1 export). */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadMetadataDir, MetadataDirError } from "../src/engine/metadata/load-dir.js";
import { exportMetadata } from "../src/engine/metadata/operations.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "metadata");
const temporary: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "metadata-load-"));
  temporary.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("loadMetadataDir", () => {
  it("reads the v3 layout, resolving !include both as a tag and as the CLI's quoted string", async () => {
    const metadata = await loadMetadataDir(join(FIXTURES, "v3"));
    expect(metadata.version).toBe(3);
    const source = metadata.sources[0];
    expect(source?.name).toBe("default");
    expect(source?.kind).toBe("postgres");
    expect(source?.configuration).toEqual({
      connection_info: {
        database_url: { from_env: "HASURA_GRAPHQL_DATABASE_URL" },
        isolation_level: "read-committed",
        use_prepared_statements: true,
      },
    });
    expect(source?.tables.map((t) => `${t.table.schema}.${t.table.name}`)).toEqual([
      "library.publisher",
      "public.article",
      "public.article_status",
      "public.author",
    ]);
    expect(source?.functions).toEqual([{ function: { schema: "public", name: "search_articles" } }]);

    const article = source?.tables[1];
    expect(article?.object_relationships).toEqual([
      { name: "author", using: { foreign_key_constraint_on: "author_id" } },
      {
        name: "publisher",
        using: { manual_configuration: { remote_table: { schema: "library", name: "publisher" }, column_mapping: { publisher_id: "id" } } },
      },
      { name: "status_info", using: { foreign_key_constraint_on: "status" } },
    ]);
    expect(article?.select_permissions?.[0]).toMatchObject({
      role: "user",
      permission: { columns: "*", limit: 100, allow_aggregations: true },
    });
    expect(source?.tables[2]).toEqual({ table: { schema: "public", name: "article_status" }, is_enum: true });

    const author = source?.tables[3];
    expect(author?.configuration).toEqual({
      custom_name: "writer",
      custom_root_fields: { select: "writers", insert_one: "addWriter" },
      column_config: { created_at: { custom_name: "createdAt", comment: "when the row was added" } },
      custom_column_names: { created_at: "createdAt" },
    });
    expect(author?.array_relationships).toEqual([
      { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
    ]);
  });

  it("keeps actions and custom types merged with the actions SDL, the other top-level files, and drops the empty ones", async () => {
    const metadata = await loadMetadataDir(join(FIXTURES, "v3"));
    expect(metadata.actions).toEqual([
      {
        name: "publishArticle",
        definition: {
          type: "mutation",
          arguments: [{ name: "input", type: "PublishInput!" }],
          output_type: "PublishOutput",
          kind: "synchronous",
          handler: "{{ACTIONS_BASE_URL}}/publish",
          forward_client_headers: true,
        },
        permissions: [{ role: "user" }],
      },
    ]);
    expect(metadata.custom_types).toEqual({
      input_objects: [{ name: "PublishInput", fields: [{ name: "articleId", type: "Int!" }] }],
      objects: [{ name: "PublishOutput", fields: [{ name: "ok", type: "Boolean!" }] }],
    });
    expect(metadata).not.toHaveProperty("actions_graphql");
    expect(metadata.allowlist).toEqual([{ collection: "allowed-queries" }]);
    expect(metadata.query_collections).toMatchObject([{ name: "allowed-queries" }]);
    for (const empty of ["cron_triggers", "remote_schemas", "inherited_roles", "rest_endpoints", "api_limits", "network"]) {
      expect(metadata).not.toHaveProperty(empty);
    }
    expect(exportMetadata(metadata)).toEqual(metadata);
  });

  it("reads the v2 layout (plain table names, legacy custom_column_names) to the same metadata as v3", async () => {
    const v2 = await loadMetadataDir(join(FIXTURES, "v2"));
    const v3 = await loadMetadataDir(join(FIXTURES, "v3"));
    expect(v2).toEqual(v3);
  });

  it("treats a directory without version.yaml as v1", async () => {
    const dir = tempDir();
    cpSync(join(FIXTURES, "v2"), dir, { recursive: true });
    rmSync(join(dir, "version.yaml"));
    expect(await loadMetadataDir(dir)).toEqual(await loadMetadataDir(join(FIXTURES, "v3")));
  });

  it("reads a single exported metadata.json (v2 export format)", async () => {
    const dir = tempDir();
    const exported = {
      version: 2,
      tables: [
        {
          table: "author",
          array_relationships: [{ name: "articles", using: { foreign_key_constraint_on: { table: "article", column: "author_id" } } }],
        },
        {
          table: { schema: "public", name: "article" },
          object_relationships: [
            { name: "writer", using: { manual_configuration: { remote_table: "author", column_mapping: { author_id: "id" } } } },
          ],
        },
      ],
    };
    writeFileSync(join(dir, "metadata.json"), JSON.stringify(exported));
    const metadata = await loadMetadataDir(dir);
    expect(metadata.sources[0]?.tables).toEqual([
      {
        table: { schema: "public", name: "author" },
        array_relationships: [
          { name: "articles", using: { foreign_key_constraint_on: { table: { schema: "public", name: "article" }, column: "author_id" } } },
        ],
      },
      {
        table: { schema: "public", name: "article" },
        object_relationships: [
          {
            name: "writer",
            using: { manual_configuration: { remote_table: { schema: "public", name: "author" }, column_mapping: { author_id: "id" } } },
          },
        ],
      },
    ]);
  });

  it("loads an empty v3 project as metadata without sources", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "version.yaml"), "version: 3\n");
    expect(await loadMetadataDir(dir)).toEqual({ version: 3, sources: [] });
  });

  it("names the file when an include is missing, cyclic or not YAML", async () => {
    const missing = tempDir();
    writeFileSync(join(missing, "version.yaml"), "version: 3\n");
    cpSync(join(FIXTURES, "v3", "databases"), join(missing, "databases"), { recursive: true });
    rmSync(join(missing, "databases", "default", "tables", "public_author.yaml"));
    await expect(loadMetadataDir(missing)).rejects.toThrow(/cannot read .*public_author\.yaml \(included from .*tables\.yaml\)/);

    const cyclic = tempDir();
    writeFileSync(join(cyclic, "version.yaml"), "version: 3\n");
    cpSync(join(FIXTURES, "v3", "databases"), join(cyclic, "databases"), { recursive: true });
    writeFileSync(join(cyclic, "databases", "default", "tables", "public_author.yaml"), '"!include tables.yaml"\n');
    await expect(loadMetadataDir(cyclic)).rejects.toThrow(/!include cycle/);

    const broken = tempDir();
    writeFileSync(join(broken, "tables.yaml"), "- table: [unclosed\n");
    await expect(loadMetadataDir(broken)).rejects.toThrow(MetadataDirError);
  });

  it("reports a malformed table with its JSON path", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tables.yaml"), "- table: author\n  object_relationships:\n  - name: x\n");
    await expect(loadMetadataDir(dir)).rejects.toThrow('key "using" not found (at $.tables[0].object_relationships[0])');
  });

  it("fails clearly for a directory that does not exist or an unknown version", async () => {
    await expect(loadMetadataDir(join(FIXTURES, "nope"))).rejects.toThrow(/does not exist/);
    const dir = tempDir();
    writeFileSync(join(dir, "version.yaml"), "version: 4\n");
    await expect(loadMetadataDir(dir)).rejects.toThrow(/unsupported version 4/);
  });
});
