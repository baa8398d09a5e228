/**
 * Tables and columns renamed through run_sql, followed in metadata as Hasura follows them
 * (renameTableInMetadata / renameColumnInMetadata, server/src-lib/Hasura/RQL/DDL/Schema/Rename.hs):
 * relationships on both sides, permissions, custom column names and remote relationships (their
 * join fields and `"$column"` arguments) take the new names, nothing is refused or dropped, and
 * the schema serves the renamed objects. server/tests-py's
 * test_renaming_{column,table}_with_remote_relationship_dependency do the remote part.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const SDL = `
  type Profile { id: Int! bio: String! }
  input ProfileWhere { id: Int }
  type Query { profiles(where: ProfileWhere): [Profile!]! }
`;

const bios: Record<number, string> = { 1: "one", 2: "two" };

type Table = Record<string, unknown> & { table: { schema: string; name: string } };

describe.each(testBackends)("run_sql renames followed in metadata [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  const run = (query: string, headers: Record<string, string> = ADMIN_HEADERS) =>
    graphql(service, { query }, headers).then((r) => r.body as Record<string, unknown>);
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const runSql = (sql: string) => admin(service, "/v2/query", { type: "run_sql", args: { sql } });
  const tables = async () => {
    const exported = (await metadata({ type: "export_metadata", args: {} })).body as { sources: Array<{ tables: Table[] }> };
    return exported.sources[0]?.tables ?? [];
  };
  const tableNamed = async (name: string) => (await tables()).find((t) => t.table.name === name);

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/profiles", {
      schema: schemaOf(SDL),
      root: {
        profiles: ({ where }: { where?: { id?: number } }) =>
          Object.entries(bios)
            .map(([id, bio]) => ({ id: Number(id), bio }))
            .filter((p) => where?.id === undefined || p.id === where.id),
      },
    });
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { REMOTE_BASE: remote.url });
    const sqlDone = await runSql(
      `CREATE TABLE authors (id int PRIMARY KEY, profile int, name text NOT NULL);
       CREATE TABLE books (id int PRIMARY KEY, writer int NOT NULL REFERENCES authors(id), title text NOT NULL);
       INSERT INTO authors VALUES (1, 1, 'a1'), (2, 2, 'a2');
       INSERT INTO books VALUES (1, 1, 'b1'), (2, 2, 'b2');`,
    );
    expect(sqlDone.status, JSON.stringify(sqlDone.body)).toBe(200);
    const setup = await metadata({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "authors" } },
        { type: "pg_track_table", args: { table: "books" } },
        { type: "add_remote_schema", args: { name: "profiles", definition: { url: "{{REMOTE_BASE}}/profiles" } } },
        { type: "pg_create_object_relationship", args: { table: "books", name: "author", using: { foreign_key_constraint_on: "writer" } } },
        {
          type: "pg_create_array_relationship",
          args: { table: "authors", name: "books", using: { foreign_key_constraint_on: { table: "books", column: "writer" } } },
        },
        {
          type: "pg_create_select_permission",
          args: { table: "books", role: "user", permission: { columns: ["id", "writer", "title"], filter: { writer: { _eq: 1 } } } },
        },
        {
          type: "pg_set_table_customization",
          args: { table: "books", configuration: { column_config: { title: { custom_name: "heading" } } } },
        },
        {
          type: "pg_create_remote_relationship",
          args: {
            table: "authors",
            name: "profileInfo",
            definition: {
              to_remote_schema: {
                remote_schema: "profiles",
                lhs_fields: ["profile"],
                remote_field: { profiles: { arguments: { where: { id: "$profile" } } } },
              },
            },
          },
        },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
  });

  it("follows a renamed column into relationships, permissions and custom names", async () => {
    const renamed = await runSql("ALTER TABLE books RENAME COLUMN writer TO author_id; ALTER TABLE books RENAME COLUMN title TO label");
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const books = await tableNamed("books");
    expect(books).toMatchObject({
      object_relationships: [{ name: "author", using: { foreign_key_constraint_on: "author_id" } }],
      select_permissions: [{ role: "user", permission: { columns: ["id", "author_id", "label"], filter: { author_id: { _eq: 1 } } } }],
      configuration: { column_config: { label: { custom_name: "heading" } } },
    });
    expect(await tableNamed("authors")).toMatchObject({
      array_relationships: [
        { name: "books", using: { foreign_key_constraint_on: { table: { schema: "public", name: "books" }, column: "author_id" } } },
      ],
    });
    expect(await run("{ books(order_by: {id: asc}) { heading author_id } }", { ...ADMIN_HEADERS, "x-hasura-role": "user" })).toEqual({
      data: { books: [{ heading: "b1", author_id: 1 }] },
    });
    expect(await run("{ books(order_by: {id: asc}) { author { name } } }")).toEqual({
      data: { books: [{ author: { name: "a1" } }, { author: { name: "a2" } }] },
    });
    expect(await run("{ authors(order_by: {id: asc}) { books { heading } } }")).toEqual({
      data: { authors: [{ books: [{ heading: "b1" }] }, { books: [{ heading: "b2" }] }] },
    });
  });

  it("follows a renamed column into a remote relationship's join fields and arguments", async () => {
    const renamed = await runSql("ALTER TABLE authors RENAME COLUMN profile TO profile_id");
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await tableNamed("authors")).toMatchObject({
      remote_relationships: [
        {
          name: "profileInfo",
          definition: {
            to_remote_schema: { lhs_fields: ["profile_id"], remote_field: { profiles: { arguments: { where: { id: "$profile_id" } } } } },
          },
        },
      ],
    });
    expect(await run("{ authors(order_by: {id: asc}) { profile_id profileInfo { bio } } }")).toEqual({
      data: {
        authors: [
          { profile_id: 1, profileInfo: [{ bio: "one" }] },
          { profile_id: 2, profileInfo: [{ bio: "two" }] },
        ],
      },
    });
  });

  it("follows a renamed table: its entry, the relationships that point at it, its remote relationships", async () => {
    const renamed = await runSql("ALTER TABLE authors RENAME TO writers");
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await tableNamed("authors")).toBeUndefined();
    expect(await tableNamed("writers")).toMatchObject({
      array_relationships: [{ name: "books" }],
      remote_relationships: [{ name: "profileInfo" }],
    });
    expect(await run("{ writers(order_by: {id: asc}) { name profileInfo { bio } books { heading } } }")).toEqual({
      data: {
        writers: [
          { name: "a1", profileInfo: [{ bio: "one" }], books: [{ heading: "b1" }] },
          { name: "a2", profileInfo: [{ bio: "two" }], books: [{ heading: "b2" }] },
        ],
      },
    });
    expect((await metadata({ type: "get_inconsistent_metadata", args: {} })).body).toMatchObject({ is_consistent: true });
  });
});
