/**
 * Remote relationships from a table to a remote schema's field
 * (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/)
 * through the engine's HTTP interface against a real graphql-js remote: the metadata commands
 * (both forms) and their refusals, one remote call per relationship for all rows (nested ones
 * too), the caller's extra arguments, null lhs values, the remote's errors, and permissions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const SDL = `
  type Profile { id: ID! bio: String! tags(limit: Int): [String!]! }
  type Directory { profile(id: ID!): Profile }
  input ProfileFilter { id: ID tag: String }
  type Query {
    profiles(where: ProfileFilter!): [Profile!]!
    profile(id: ID!, upper: Boolean): Profile
    directory: Directory!
    failing(id: ID!): String
  }
`;

const bios: Record<string, string> = { "1": "one", "2": "two", "3": "three" };

function root() {
  const profile = ({ id, upper }: { id: string; upper?: boolean }) =>
    bios[id]
      ? {
          id,
          bio: upper ? bios[id].toUpperCase() : bios[id],
          tags: ({ limit }: { limit?: number }) => ["a", "b", "c"].slice(0, limit ?? 3),
        }
      : null;
  return {
    profile,
    profiles: ({ where }: { where: { id?: string; tag?: string } }) =>
      [profile({ id: where.id ?? "" })].filter((p) => p !== null && (!where.tag || ["a", "b", "c"].includes(where.tag))),
    directory: () => ({ profile }),
    failing: () => {
      throw new Error("remote failed");
    },
  };
}

describe.each(testBackends)("remote relationships [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  let handler: HandlerServer;
  const run = (query: string, headers: Record<string, string> = ADMIN_HEADERS, variables?: Record<string, unknown>) =>
    graphql(service, { query, ...(variables ? { variables } : {}) }, headers).then((r) => r.body as Record<string, unknown>);
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const calls = () => remote.requests.filter((r) => r.path === "/profiles" && !String(r.body.query).includes("__schema")).length;
  const createRel = (name: string, definition: Record<string, unknown>, table = "authors") =>
    metadata({ type: "create_remote_relationship", args: { table, name, definition } });

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/profiles", { schema: schemaOf(SDL), root: root() });
    handle = await openTestDatabase(backend);
    handler = await startHandlerServer();
    handler.route("/authors", () => ({ body: [{ author_id: 1 }, { author_id: 2 }] }));
    service = await openService(handle.db, { REMOTE_BASE: remote.url, ACTION_BASE: handler.url });
    const sqlDone = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: `CREATE TABLE authors (id int PRIMARY KEY, profile_id text, name text NOT NULL);
              CREATE TABLE books (id int PRIMARY KEY, author_id int NOT NULL REFERENCES authors(id), title text NOT NULL);
              INSERT INTO authors VALUES (1, '1', 'a1'), (2, '2', 'a2'), (3, '1', 'a3'), (4, NULL, 'a4');
              INSERT INTO books VALUES (1, 1, 'b1'), (2, 2, 'b2'), (3, 3, 'b3'), (4, 4, 'b4');`,
      },
    });
    expect(sqlDone.status, JSON.stringify(sqlDone.body)).toBe(200);
    for (const table of ["authors", "books"]) {
      const tracked = await metadata({ type: "pg_track_table", args: { table } });
      expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    }
    const rel = await metadata({
      type: "pg_create_object_relationship",
      args: { table: "books", name: "author", using: { foreign_key_constraint_on: "author_id" } },
    });
    expect(rel.status, JSON.stringify(rel.body)).toBe(200);
    const arr = await metadata({
      type: "pg_create_array_relationship",
      args: { table: "authors", name: "books", using: { foreign_key_constraint_on: { table: "books", column: "author_id" } } },
    });
    expect(arr.status, JSON.stringify(arr.body)).toBe(200);
    const added = await metadata({
      type: "add_remote_schema",
      args: { name: "profiles", definition: { url: "{{REMOTE_BASE}}/profiles" } },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const perm = await metadata({
      type: "pg_create_select_permission",
      args: { table: "authors", role: "user", permission: { columns: ["id", "profile_id", "name"], filter: {} } },
    });
    expect(perm.status, JSON.stringify(perm.body)).toBe(200);
    const narrow = await metadata({
      type: "pg_create_select_permission",
      args: { table: "authors", role: "reader", permission: { columns: ["id", "name"], filter: {} } },
    });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
    await handler?.close();
  });

  it("create_remote_relationship (to_remote_schema) serves the field, one remote call for every row", async () => {
    const created = await createRel("profile", {
      to_remote_schema: {
        remote_schema: "profiles",
        lhs_fields: ["profile_id"],
        remote_field: { profile: { arguments: { id: "$profile_id" } } },
      },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    const before = calls();
    expect(await run("{ authors(order_by: {id: asc}) { id profile { id bio } } }")).toEqual({
      data: {
        authors: [
          { id: 1, profile: { id: "1", bio: "one" } },
          { id: 2, profile: { id: "2", bio: "two" } },
          { id: 3, profile: { id: "1", bio: "one" } },
          { id: 4, profile: null },
        ],
      },
    });
    expect(calls() - before).toBe(1);
    const last = remote.requests[remote.requests.length - 1];
    // Distinct lhs values only: authors 1 and 3 share profile 1.
    expect(String(last?.body.query).match(/profile\(/g)?.length).toBe(2);
    // Subscriptions do not make remote calls: one selecting the relationship is refused, not answered without it.
    const admin = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
    const started = await service.runtime.start({ query: "subscription { authors { id profile { id } } }" }, admin, {}, { push: () => {} });
    expect(started.kind === "answer" && JSON.parse(started.response.body)).toMatchObject({
      errors: [
        { message: "subscriptions to this root field (remote relationship) are not supported", extensions: { code: "not-supported" } },
      ],
    });
  });

  it("joins relationships nested in array and object relationships and aggregates, one call per node", async () => {
    const before = calls();
    const body = await run(`{
      books(order_by: {id: asc}) { id author { profile { bio } } }
      authors(where: {id: {_lte: 2}}, order_by: {id: asc}) { books { author { p: profile { tags } } } }
      authors_aggregate { nodes { profile { id } } }
    }`);
    expect(body).toEqual({
      data: {
        books: [
          { id: 1, author: { profile: { bio: "one" } } },
          { id: 2, author: { profile: { bio: "two" } } },
          { id: 3, author: { profile: { bio: "one" } } },
          { id: 4, author: { profile: null } },
        ],
        authors: [{ books: [{ author: { p: { tags: ["a", "b", "c"] } } }] }, { books: [{ author: { p: { tags: ["a", "b", "c"] } } }] }],
        authors_aggregate: { nodes: expect.any(Array) },
      },
    });
    expect(calls() - before).toBe(3);
  });

  it("passes the caller's arguments the relationship does not fix, and nested remote paths", async () => {
    expect(await run("{ authors_by_pk(id: 2) { profile(upper: true) { bio tags(limit: 1) } } }")).toEqual({
      data: { authors_by_pk: { profile: { bio: "TWO", tags: ["a"] } } },
    });
    const legacy = await metadata({
      type: "create_remote_relationship",
      args: {
        table: "authors",
        name: "listed",
        remote_schema: "profiles",
        hasura_fields: ["profile_id"],
        remote_field: { directory: { arguments: {}, field: { profile: { arguments: { id: "$profile_id" } } } } },
      },
    });
    expect(legacy).toEqual({ status: 200, body: { message: "success" } });
    expect(await run("{ authors_by_pk(id: 1) { listed { bio } } }")).toEqual({ data: { authors_by_pk: { listed: { bio: "one" } } } });
  });

  it("lets the caller give the fields of a fixed input object the relationship leaves open", async () => {
    const created = await createRel("filtered", {
      to_remote_schema: {
        remote_schema: "profiles",
        lhs_fields: ["profile_id"],
        remote_field: { profiles: { arguments: { where: { id: "$profile_id" } } } },
      },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    const type = await run('{ __type(name: "ProfileFilter_remote_rel_authorsfiltered") { inputFields { name } } }');
    expect(type).toEqual({ data: { __type: { inputFields: [{ name: "tag" }] } } });
    const query =
      'query q($t: String) { authors_by_pk(id: 1) { a: filtered(where: {tag: $t}) { id } b: filtered(where: {tag: "z"}) { id } } }';
    expect(await run(query, ADMIN_HEADERS, { t: "a" })).toEqual({ data: { authors_by_pk: { a: [{ id: "1" }], b: [] } } });
  });

  it("joins the rows an action's output relationships reach", async () => {
    const setup = await metadata({
      type: "bulk",
      args: [
        {
          type: "set_custom_types",
          args: {
            objects: [
              {
                name: "AuthorRef",
                fields: [{ name: "author_id", type: "Int!" }],
                relationships: [{ name: "author", type: "object", remote_table: "authors", field_mapping: { author_id: "id" } }],
              },
            ],
          },
        },
        {
          type: "create_action",
          args: {
            name: "someAuthors",
            definition: { kind: "synchronous", type: "query", output_type: "[AuthorRef!]!", handler: "{{ACTION_BASE}}/authors" },
          },
        },
        {
          type: "create_action",
          args: {
            name: "touchAuthors",
            definition: { kind: "synchronous", type: "mutation", output_type: "[AuthorRef!]!", handler: "{{ACTION_BASE}}/authors" },
          },
        },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const before = calls();
    expect(await run("{ someAuthors { author_id author { profile { bio } } } }")).toEqual({
      data: {
        someAuthors: [
          { author_id: 1, author: { profile: { bio: "one" } } },
          { author_id: 2, author: { profile: { bio: "two" } } },
        ],
      },
    });
    expect(calls() - before).toBe(1);
    // A mutation action's output too.
    const again = calls();
    expect(await run("mutation { touchAuthors { author_id author { profile { bio } } } }")).toEqual({
      data: {
        touchAuthors: [
          { author_id: 1, author: { profile: { bio: "one" } } },
          { author_id: 2, author: { profile: { bio: "two" } } },
        ],
      },
    });
    expect(calls() - again).toBe(1);
  });

  it("sends the operation's variables the relationship's selection uses, and answers __typename", async () => {
    const query = "query q($u: Boolean) { authors_by_pk(id: 2) { profile(upper: $u) { __typename bio } } }";
    expect(await run(query, ADMIN_HEADERS, { u: true })).toEqual({
      data: { authors_by_pk: { profile: { __typename: "Profile", bio: "TWO" } } },
    });
    const last = remote.requests[remote.requests.length - 1];
    expect(last?.body.variables).toEqual({ u: true });
    // The plan is kept for the operation: the next request's own values are sent.
    expect(await run(query, ADMIN_HEADERS, { u: false })).toEqual({
      data: { authors_by_pk: { profile: { __typename: "Profile", bio: "two" } } },
    });
    expect(remote.requests[remote.requests.length - 1]?.body.variables).toEqual({ u: false });
    const id = "query q($id: Int!, $u: Boolean) { authors_by_pk(id: $id) { profile(upper: $u) { bio } } }";
    expect(await run(id, ADMIN_HEADERS, { id: 1, u: true })).toEqual({ data: { authors_by_pk: { profile: { bio: "ONE" } } } });
    expect(await run(id, ADMIN_HEADERS, { id: 2 })).toEqual({ data: { authors_by_pk: { profile: { bio: "two" } } } });
  });

  it("joins the rows a mutation returns, after its transaction", async () => {
    const before = calls();
    expect(
      await run(`mutation {
        insert_authors_one(object: {id: 10, profile_id: "3", name: "new"}) { id profile { bio } }
        insert_authors(objects: [{id: 11, profile_id: "2", name: "n2"}]) { affected_rows returning { profile { bio } } }
      }`),
    ).toEqual({
      data: {
        insert_authors_one: { id: 10, profile: { bio: "three" } },
        insert_authors: { affected_rows: 1, returning: [{ profile: { bio: "two" } }] },
      },
    });
    expect(calls() - before).toBe(2);
    expect(await run("mutation { delete_authors(where: {id: {_gte: 10}}) { returning { profile { bio } } } }")).toEqual({
      data: { delete_authors: { returning: [{ profile: { bio: "three" } }, { profile: { bio: "two" } }] } },
    });
  });

  it("answers the remote's errors as Hasura does", async () => {
    const created = await createRel("broken", {
      to_remote_schema: {
        remote_schema: "profiles",
        lhs_fields: ["profile_id"],
        remote_field: { failing: { arguments: { id: "$profile_id" } } },
      },
    });
    expect(created.status).toBe(200);
    const body = await run("{ authors { broken } }");
    expect(body).toMatchObject({
      errors: [
        {
          message: "Errors from remote server",
          extensions: {
            code: "unexpected",
            path: "$",
            internal: { errors: expect.arrayContaining([expect.objectContaining({ message: "remote failed", path: ["f0"] })]) },
          },
        },
      ],
    });
    // Other roles do not see the remote's errors (`internal`).
    const asUser = await run("{ authors { broken } }", { ...ADMIN_HEADERS, "x-hasura-role": "user" });
    expect(asUser).toEqual({ errors: [{ message: "Errors from remote server", extensions: { code: "unexpected", path: "$" } }] });
  });

  it("shows the relationship to roles that may select its lhs columns only", async () => {
    expect(await run("{ authors(where: {id: {_eq: 1}}) { profile { bio } } }", { ...ADMIN_HEADERS, "x-hasura-role": "user" })).toEqual({
      data: { authors: [{ profile: { bio: "one" } }] },
    });
    const refused = await run("{ authors { profile { bio } } }", { ...ADMIN_HEADERS, "x-hasura-role": "reader" });
    expect(refused).toMatchObject({ errors: [{ extensions: { code: "validation-failed" } }] });
    const noTable = await run("{ authors { profile { bio } } }", { ...ADMIN_HEADERS, "x-hasura-role": "nobody" });
    expect(noTable).toMatchObject({ errors: [{ extensions: { code: "validation-failed" } }] });
  });

  it("refuses relationships that do not resolve, with Hasura's reasons", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { remote_schema: "nope", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: "$id" } } } },
        'remote schema with name "nope" not found',
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { nothing: { arguments: {} } } },
        'remote field with name "nothing" and type "Query" not found',
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { profile: { arguments: { what: "$id" } } } },
        'argument with name "what" not found in remote schema',
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: "$id", upper: "yes" } } } },
        'expected type "Boolean" but got "String"',
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: 1.5 } } } },
        'Only ID, Int, uuid or String scalar types can be joined to the ID type, but received "Float"',
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: null } } } },
        "null is not allowed here",
      ],
      [
        { remote_schema: "profiles", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: "$name" } } } },
        'variable "name" is not found',
      ],
    ];
    for (const [to, reason] of cases) {
      const refused = await createRel("bad", { to_remote_schema: to });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: "invalid-configuration",
        error: `Inconsistent object: in table "authors": in remote relationship"bad": ${reason}`,
      });
    }
    const column = await createRel("bad", {
      to_remote_schema: {
        remote_schema: "profiles",
        lhs_fields: ["missing"],
        remote_field: { profile: { arguments: { id: "$missing" } } },
      },
    });
    expect(column.status).toBe(400);
    expect(String((column.body as { error: string }).error)).toContain(
      'field with name "missing"is not provided by the lhs entity"authors"',
    );
  });

  it("refuses to remove a remote schema relationships depend on", async () => {
    const removal = await metadata({ type: "remove_remote_schema", args: { name: "profiles" } });
    expect(removal.status).toBe(400);
    expect(removal.body).toMatchObject({
      code: "dependency-error",
      error: expect.stringContaining(
        'cannot drop due to the following dependent objects: remote relationship authors.profile in source "default"',
      ),
    });
  });

  it("reports relationships that stop resolving and deletes them", async () => {
    const consistent = await metadata({ type: "get_inconsistent_metadata", args: {} });
    expect(consistent.body).toMatchObject({ is_consistent: true });
    const deleted = await metadata({ type: "delete_remote_relationship", args: { table: "authors", name: "broken" } });
    expect(deleted).toEqual({ status: 200, body: { message: "success" } });
    const again = await metadata({ type: "delete_remote_relationship", args: { table: "authors", name: "broken" } });
    expect(again.status).toBe(400);
    const exported = (await metadata({ type: "export_metadata", args: {} })).body as {
      sources: Array<{ tables: Array<Record<string, unknown>> }>;
    };
    const authors = exported.sources[0]?.tables.find((t) => (t.table as { name: string }).name === "authors");
    const kept = authors?.remote_relationships as Array<Record<string, unknown>> | undefined;
    const tables = exported.sources[0]?.tables ?? [];
    // Replaced metadata with an unknown remote: reported, and the rest is served.
    const broken = tables.map((t) =>
      (t.table as { name: string }).name === "authors"
        ? {
            ...t,
            remote_relationships: [
              ...(kept ?? []),
              {
                name: "gone",
                definition: {
                  to_remote_schema: { remote_schema: "nope", lhs_fields: ["id"], remote_field: { profile: { arguments: { id: "$id" } } } },
                },
              },
            ],
          }
        : t,
    );
    const replaced = await metadata({
      type: "replace_metadata",
      args: {
        allow_inconsistent_metadata: true,
        metadata: { ...(exported as object), sources: [{ ...exported.sources[0], tables: broken }] },
      },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({
      is_consistent: false,
      inconsistent_objects: [
        {
          type: "remote_relationship",
          name: "remote_relationship gone in table authors in source default",
          reason: 'Inconsistent object: in table "authors": in remote relationship"gone": remote schema with name "nope" not found',
        },
      ],
    });
    expect(await run("{ authors_by_pk(id: 1) { profile { bio } } }")).toEqual({ data: { authors_by_pk: { profile: { bio: "one" } } } });
    const dropped = await metadata({ type: "drop_inconsistent_metadata", args: {} });
    expect(dropped.status).toBe(200);
    expect((await metadata({ type: "get_inconsistent_metadata", args: {} })).body).toMatchObject({ is_consistent: true });
  });

  it("follows a dropped lhs column as run_sql does: refused, or cascaded to the relationships", async () => {
    const sqlQuery = (sql: string, cascade = false) => admin(service, "/v2/query", { type: "run_sql", args: { sql, cascade } });
    const refused = await sqlQuery("ALTER TABLE authors DROP COLUMN profile_id");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "dependency-error",
      error: expect.stringContaining('remote relationship authors.profile in source "default"'),
    });
    const dropped = await sqlQuery("ALTER TABLE authors DROP COLUMN profile_id", true);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
    const exported = (await metadata({ type: "export_metadata", args: {} })).body as {
      sources: Array<{ tables: Array<Record<string, unknown>> }>;
    };
    const authors = exported.sources[0]?.tables.find((t) => (t.table as { name: string }).name === "authors");
    expect(authors).not.toHaveProperty("remote_relationships");
    expect(await run("{ authors_by_pk(id: 1) { name } }")).toEqual({ data: { authors_by_pk: { name: "a1" } } });
  });
});
