/**
 * Remote schema permissions (https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/)
 * through the engine's HTTP interface against a real graphql-js remote that records what it is
 * sent. HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS off: every role sees a remote whole and
 * add_remote_schema_permissions is refused. On: a role sees a remote only through its permission's
 * schema document (a subset of the remote's, checked with Hasura's reasons), and the arguments it
 * presets are sent by the engine: literals, input objects, values inside variables, and session
 * variables read per request (Int, Boolean, enums), also through a table's remote relationship.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const REMOTE_SDL = `
  enum Status { OPEN CLOSED }
  input Range { low: Int high: Int }
  input Filter { owner: Int range: Range status: Status }
  input Page { size: Int offset: Int }
  type Item { id: Int! owner: Int! status: Status! secret: String }
  type Query {
    hello: String
    items(filter: Filter, page: Page): [Item!]!
    item(id: Int!): Item
    ownedBy(owner: Int!, open: Boolean): [Item!]!
    byStatus(status: Status!): [Item!]!
    echo(text: String): String
  }
`;

const ITEMS = [1, 2, 3, 4].map((id) => ({ id, owner: id % 2 === 0 ? 2 : 1, status: id < 3 ? "OPEN" : "CLOSED", secret: `s${id}` }));

type Filter = { owner?: number; range?: { low?: number; high?: number }; status?: string } | null;

const ROOT = {
  hello: () => "world",
  items: ({ filter, page }: { filter?: Filter; page?: { size?: number; offset?: number } }) =>
    ITEMS.filter(
      (i) =>
        (filter?.owner == null || i.owner === filter.owner) &&
        (filter?.range?.low == null || i.id >= filter.range.low) &&
        (filter?.range?.high == null || i.id <= filter.range.high) &&
        (filter?.status == null || i.status === filter.status),
    ).slice(page?.offset ?? 0, (page?.offset ?? 0) + (page?.size ?? 100)),
  item: ({ id }: { id: number }) => ITEMS.find((i) => i.id === id) ?? null,
  ownedBy: ({ owner, open }: { owner: number; open?: boolean }) =>
    ITEMS.filter((i) => i.owner === owner && (open == null || (i.status === "OPEN") === open)),
  byStatus: ({ status }: { status: string }) => ITEMS.filter((i) => i.status === status),
  echo: ({ text }: { text?: string }) => text ?? null,
};

/** The role `user`'s view: a subset, with presets. */
const USER_SCHEMA = `
  enum Status { OPEN CLOSED }
  input Range { low: Int @preset(value: 2) high: Int }
  input Filter { owner: Int @preset(value: "x-hasura-user-id") range: Range }
  input Page { size: Int @preset(value: 1) offset: Int @preset(value: 0) }
  type Item { id: Int! owner: Int! status: Status! }
  type Query {
    items(filter: Filter, page: Page): [Item!]!
    item(id: Int!): Item
    ownedBy(owner: Int! @preset(value: "X-Hasura-User-Id"), open: Boolean @preset(value: "x-hasura-open")): [Item!]!
    byStatus(status: Status! @preset(value: "x-hasura-status")): [Item!]!
    echo(text: String @preset(value: "x-hasura-user-id", static: true)): String
  }
`;

const asRole = (role: string, variables: Record<string, string> = {}) => ({ ...ADMIN_HEADERS, "x-hasura-role": role, ...variables });

describe.each(testBackends)("remote schema permissions [%s]", (backend) => {
  describe("setting off (Hasura's default)", () => {
    let handle: TestDatabase;
    let service: Service;
    let remote: GraphqlServer;
    beforeAll(async () => {
      remote = await startGraphqlServer();
      remote.route("/items", { schema: schemaOf(REMOTE_SDL), root: ROOT });
      handle = await openTestDatabase(backend);
      service = await openService(handle.db);
      const added = await admin(service, "/v1/metadata", {
        type: "add_remote_schema",
        args: { name: "items", definition: { url: `${remote.url}/items` } },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    });
    afterAll(async () => {
      await service?.close();
      await handle?.dispose();
      await remote?.close();
    });

    it("serves every role the whole remote and refuses permissions", async () => {
      expect((await graphql(service, { query: "{ hello item(id: 1) { secret } }" }, asRole("user"))).body).toEqual({
        data: { hello: "world", item: { secret: "s1" } },
      });
      const refused = await admin(service, "/v1/metadata", {
        type: "add_remote_schema_permissions",
        args: { remote_schema: "items", role: "user", definition: { schema: USER_SCHEMA } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        path: "$.args",
        error: "remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine",
        code: "constraint-violation",
      });
    });

    it("keeps permissions that come with metadata, checked but not used", async () => {
      const exported = (await admin(service, "/v1/metadata", { type: "export_metadata", args: {} })).body as Record<string, unknown>;
      const [schema] = exported.remote_schemas as Array<Record<string, unknown>>;
      const permissions = [{ role: "user", definition: { schema: USER_SCHEMA } }];
      const replaced = await admin(service, "/v1/metadata", {
        type: "replace_metadata",
        args: { ...exported, remote_schemas: [{ ...schema, permissions }] },
      });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect((await admin(service, "/v1/metadata", { type: "get_inconsistent_metadata", args: {} })).body).toMatchObject({
        is_consistent: true,
      });
      expect((await graphql(service, { query: "{ hello }" }, asRole("user"))).body).toEqual({ data: { hello: "world" } });
    });
  });

  describe("setting on", () => {
    let handle: TestDatabase;
    let service: Service;
    let remote: GraphqlServer;
    const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
    const addPermission = (role: string, schema: string) =>
      metadata({ type: "add_remote_schema_permissions", args: { remote_schema: "items", role, definition: { schema } } });
    const run = (query: string, headers: Record<string, string>, variables?: Record<string, unknown>) =>
      graphql(service, { query, ...(variables ? { variables } : {}) }, headers).then((r) => r.body as Record<string, unknown>);
    /** What the remote was last sent. */
    const lastSent = () => remote.requests[remote.requests.length - 1]?.body;

    beforeAll(async () => {
      remote = await startGraphqlServer();
      remote.route("/items", { schema: schemaOf(REMOTE_SDL), root: ROOT });
      handle = await openTestDatabase(backend);
      service = await openService(handle.db, { HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: "true" });
      const setup = await admin(service, "/v2/query", {
        type: "run_sql",
        args: { sql: "CREATE TABLE owners (id int PRIMARY KEY, name text); INSERT INTO owners VALUES (1, 'ada'), (2, 'bob');" },
      });
      expect(setup.status, JSON.stringify(setup.body)).toBe(200);
      const added = await metadata({
        type: "bulk",
        args: [
          { type: "add_remote_schema", args: { name: "items", definition: { url: `${remote.url}/items` } } },
          { type: "pg_track_table", args: { table: "owners" } },
          {
            type: "pg_create_select_permission",
            args: { table: "owners", role: "user", permission: { columns: ["id", "name"], filter: {} } },
          },
          {
            type: "pg_create_remote_relationship",
            args: {
              table: "owners",
              name: "open_items",
              definition: {
                to_remote_schema: { remote_schema: "items", lhs_fields: ["id"], remote_field: { byStatus: { arguments: {} } } },
              },
            },
          },
        ],
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    });
    afterAll(async () => {
      await service?.close();
      await handle?.dispose();
      await remote?.close();
    });

    it("shows a remote only to the admin and to roles with a permission", async () => {
      expect(await run("{ hello }", ADMIN_HEADERS)).toEqual({ data: { hello: "world" } });
      expect(await run("{ hello }", asRole("user"))).toEqual({
        errors: [
          {
            message: "field 'hello' not found in type: 'query_root'",
            extensions: { path: "$.selectionSet.hello", code: "validation-failed" },
          },
        ],
      });
    });

    it("refuses a schema that is not a subset of the remote's, with every reason", async () => {
      const refused = await addPermission(
        "user",
        `
        type Item { id: String owner: Int! colour: String }
        enum Status { OPEN SHUT }
        type Query { item: Item }
      `,
      );
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        path: "$.args",
        code: "validation-failed",
        error:
          "validation for the given role-based schema failed for the following reasons:\n" +
          ' • expected type of "id"("Object field") to be Int! but received String\n' +
          ' • field "colour" does not exist in the "Object": "Item"\n' +
          ' • enum "Status" contains the following enum values that do not exist in the corresponding upstream remote enum: "SHUT"\n' +
          ' • field: "item" expects the following non nullable arguments to be present: "id"\n',
      });
      expect((await addPermission("user", "scalar Time type Query { hello: String }")).body).toMatchObject({
        error: 'validation for the given role-based schema failed because "Scalar": "Time" does not exist in the upstream remote schema',
      });
      expect(
        (await addPermission("user", "type Query { item(id: Int! @preset(value: {id: 1})): Item } type Item { id: Int! }")).body,
      ).toMatchObject({
        error:
          'validation for the given role-based schema failed because expected preset value "{id: 1}" of type "Int" to be a scalar value',
      });
      expect((await addPermission("admin", "type Query { hello: String }")).body).toEqual({
        path: "$.args",
        code: "constraint-violation",
        error: "cannot define permission for admin role",
      });
      expect(
        (
          await metadata({
            type: "add_remote_schema_permissions",
            args: { remote_schema: "nope", role: "user", definition: { schema: "type Query { hello: String }" } },
          })
        ).body,
      ).toMatchObject({
        code: "not-exists",
        error: 'remote schema "nope" doesn\'t exist',
      });
    });

    it("serves a role its subset, sending the arguments it presets", async () => {
      const added = await addPermission("user", USER_SCHEMA);
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect((await addPermission("user", USER_SCHEMA)).body).toMatchObject({ code: "already-exists" });
      const user = asRole("user", { "x-hasura-user-id": "2", "x-hasura-status": "CLOSED", "x-hasura-open": "true" });

      // Not in the role's view: a field, a type's field, a preset argument, a type whose every field is preset.
      expect(await run("{ hello }", user)).toMatchObject({ errors: [{ message: "field 'hello' not found in type: 'query_root'" }] });
      expect(await run("{ item(id: 1) { secret } }", user)).toMatchObject({
        errors: [{ message: "field 'secret' not found in type: 'Item'" }],
      });
      expect(await run("{ ownedBy(owner: 1) { id } }", user)).toMatchObject({
        errors: [{ message: "'ownedBy' has no argument named 'owner'" }],
      });
      expect(await run("{ items(page: {}) { id } }", user)).toMatchObject({
        errors: [{ message: "'items' has no argument named 'page'" }],
      });
      expect(await run('{ __type(name: "Page") { name } }', user)).toEqual({ data: { __type: null } });

      // Session presets, read per request and typed as the argument is.
      expect(await run("{ ownedBy { id owner } }", user)).toEqual({ data: { ownedBy: [{ id: 2, owner: 2 }] } });
      expect(lastSent()?.variables).toEqual({ x_hasura_user_id: 2, x_hasura_open: true });
      expect(await run("{ byStatus { id } }", user)).toEqual({ data: { byStatus: [{ id: 3 }, { id: 4 }] } });
      expect(await run('{ echo(text: "ignored") }', user)).toMatchObject({ errors: [{ message: "'echo' has no argument named 'text'" }] });
      expect(await run("{ echo }", user)).toEqual({ data: { echo: "x-hasura-user-id" } });

      // Presets inside input objects: a literal, a variable (expanded), and a page the role cannot give at all.
      expect(await run("{ items(filter: {range: {high: 4}}) { id } }", user)).toEqual({ data: { items: [{ id: 2 }] } });
      expect(lastSent()?.query).toMatch(/page: \{size: 1,\s*offset: 0\}/);
      expect(await run("query ($f: Filter) { items(filter: $f) { id } }", user, { f: { range: { high: 4 } } })).toEqual({
        data: { items: [{ id: 2 }] },
      });
      expect(lastSent()?.variables).toMatchObject({ x_hasura_user_id: 2, hasura_json_var_1: 4 });
      expect(await run("{ items { id } }", user)).toEqual({ data: { items: [{ id: 1 }] } });

      // The admin still sees the remote whole.
      expect(await run("{ ownedBy(owner: 1) { id } items { id } }", ADMIN_HEADERS)).toEqual({
        data: { ownedBy: [{ id: 1 }, { id: 3 }], items: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] },
      });
    });

    it("answers Hasura's errors for a missing or unreadable session variable", async () => {
      expect(await run("{ ownedBy { id } }", asRole("user", { "x-hasura-open": "true" }))).toEqual({
        errors: [{ message: '"x-hasura-user-id" session variable expected, but not found', extensions: { path: "$", code: "not-found" } }],
      });
      expect(await run("{ ownedBy { id } }", asRole("user", { "x-hasura-user-id": "two", "x-hasura-open": "true" }))).toEqual({
        errors: [{ message: '"two" cannot be coerced into an Int value', extensions: { path: "$", code: "coercion-error" } }],
      });
      expect(await run("{ ownedBy { id } }", asRole("user", { "x-hasura-user-id": "1", "x-hasura-open": "yes" }))).toMatchObject({
        errors: [{ message: '"yes" cannot be coerced into a Boolean value' }],
      });
      expect(await run("{ byStatus { id } }", asRole("user", { "x-hasura-status": "LOST" }))).toMatchObject({
        errors: [{ message: '"LOST" is not one of the valid enum values', extensions: { code: "coercion-error" } }],
      });
    });

    it("sends a remote relationship the role's presets", async () => {
      const body = await run("{ owners(order_by: {id: asc}) { name open_items { id } } }", asRole("user", { "x-hasura-status": "OPEN" }));
      expect(body).toEqual({
        data: {
          owners: [
            { name: "ada", open_items: [{ id: 1 }, { id: 2 }] },
            { name: "bob", open_items: [{ id: 1 }, { id: 2 }] },
          ],
        },
      });
      expect(lastSent()?.variables).toEqual({ x_hasura_status: "OPEN" });
    });

    it("refuses a remote schema change that breaks a permission, and drops permissions", async () => {
      remote.route("/narrow", { schema: schemaOf("type Query { hello: String }"), root: ROOT });
      const changed = await metadata({
        type: "update_remote_schema",
        args: { name: "items", definition: { url: `${remote.url}/narrow` } },
      });
      expect(changed.status).toBe(400);
      expect(await run("{ ownedBy { id } }", asRole("user", { "x-hasura-user-id": "1", "x-hasura-open": "true" }))).toEqual({
        data: { ownedBy: [{ id: 1 }] },
      });
      const dropped = await metadata({ type: "drop_remote_schema_permissions", args: { remote_schema: "items", role: "user" } });
      expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
      expect(
        (await metadata({ type: "drop_remote_schema_permissions", args: { remote_schema: "items", role: "user" } })).body,
      ).toMatchObject({
        code: "not-exists",
        error: 'permissions for role: "user" for remote schema:"items" doesn\'t exist',
      });
      expect(await run("{ ownedBy { id } }", asRole("user"))).toMatchObject({
        errors: [{ message: "field 'ownedBy' not found in type: 'query_root'" }],
      });
    });

    it("reports a permission that no longer resolves, and drop_inconsistent_metadata removes it", async () => {
      const exported = (await metadata({ type: "export_metadata", args: {} })).body as Record<string, unknown>;
      const [schema] = exported.remote_schemas as Array<Record<string, unknown>>;
      const permissions = [
        { role: "user", definition: { schema: USER_SCHEMA } },
        { role: "guest", definition: { schema: "type Query { missing: String }" } },
      ];
      const replaced = await metadata({
        type: "replace_metadata",
        args: { allow_inconsistent_metadata: true, metadata: { ...exported, remote_schemas: [{ ...schema, permissions }] } },
      });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect((await metadata({ type: "get_inconsistent_metadata", args: {} })).body).toEqual({
        is_consistent: false,
        inconsistent_objects: [
          {
            definition: { remote_schema: "items", role: "guest", definition: { schema: "type Query { missing: String }" }, comment: null },
            name: "remote_schema_permission guest permission in remote schema items",
            reason:
              'Inconsistent object: validation for the given role-based schema failed because field "missing" does not exist in the "Object": "Query"',
            type: "remote_schema_permission",
          },
        ],
      });
      expect(await run("{ ownedBy { id } }", asRole("user", { "x-hasura-user-id": "1", "x-hasura-open": "true" }))).toEqual({
        data: { ownedBy: [{ id: 1 }] },
      });
      expect((await metadata({ type: "drop_inconsistent_metadata", args: {} })).status).toBe(200);
      const after = (await metadata({ type: "export_metadata", args: {} })).body as {
        remote_schemas: Array<{ permissions: Array<{ role: string }> }>;
      };
      expect(after.remote_schemas[0]?.permissions.map((p) => p.role)).toEqual(["user"]);
    });
  });
});
