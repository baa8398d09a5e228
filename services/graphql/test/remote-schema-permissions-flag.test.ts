/**
 * HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/):
 * off (Hasura's default), every role sees a remote schema whole; on, a role other than admin sees
 * a remote only through a permission of its own. Such permissions are not served yet, so with the
 * setting on those roles see no remote schema, never more than Hasura would show them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const asRole = (role: string) => ({ ...ADMIN_HEADERS, "x-hasura-role": role });

describe.each([false, true])("remote schema permissions setting %s", (enabled) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/hello", { schema: schemaOf("type Query { hello: String }"), root: { hello: () => "world" } });
    handle = await openTestDatabase("pglite");
    service = await openService(handle.db, { HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: String(enabled) });
    const created = await admin(service, "/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE notes (id int PRIMARY KEY)" } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const setup = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "notes" } },
        { type: "pg_create_select_permission", args: { table: "notes", role: "user", permission: { columns: ["id"], filter: {} } } },
        { type: "add_remote_schema", args: { name: "hello", definition: { url: `${remote.url}/hello` } } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
  });

  it("serves the remote to the admin either way", async () => {
    expect((await graphql(service, { query: "{ hello }" }, ADMIN_HEADERS)).body).toEqual({ data: { hello: "world" } });
  });

  it(enabled ? "hides the remote from other roles" : "serves the remote to every role", async () => {
    const body = (await graphql(service, { query: "{ hello }" }, asRole("user"))).body;
    if (!enabled) expect(body).toEqual({ data: { hello: "world" } });
    else
      expect(body).toEqual({
        errors: [
          {
            message: "field 'hello' not found in type: 'query_root'",
            extensions: { path: "$.selectionSet.hello", code: "validation-failed" },
          },
        ],
      });
  });
});
