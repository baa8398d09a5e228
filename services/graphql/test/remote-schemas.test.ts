/**
 * Remote schemas (https://hasura.io/docs/latest/remote-schemas/overview/) served through the
 * engine's HTTP interface against a real graphql-js server: the remote's schema fetched by
 * add_remote_schema (and refused as Hasura refuses it), kept across rebuilds and fetched again by
 * reload; its fields merged with the tables' in one request (queries run concurrently, mutations in
 * order), variables, fragments, interfaces and unions sent in the remote's own names, its errors
 * answered with their path, headers sent as Hasura sends them, timeouts, an unreachable remote at
 * start-up reported and fixed by reload, and customization (namespace, prefix/suffix, mappings).
 */
import { GraphQLError } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const USERS_SDL = `
  interface Node { id: ID! }
  type User implements Node { id: ID! name: String! role: Role friends: [User!]! }
  type Robot implements Node { id: ID! model: String }
  union Thing = User | Robot
  enum Role { ADMIN MEMBER }
  scalar JSON
  input UserFilter { name: String role: Role }
  type Query {
    user(id: ID!): User
    users(filter: UserFilter, limit: Int = 10): [User!]!
    node(id: ID!): Node
    things: [Thing!]!
    echo(value: JSON): JSON
    seen: JSON
    boom: User
  }
  type Mutation { createUser(name: String!): User! }
`;

interface User {
  __typename: "User";
  id: string;
  name: string;
  role: string;
  friends: User[];
}

const ada: User = { __typename: "User", id: "1", name: "ada", role: "ADMIN", friends: [] };
const bob: User = { __typename: "User", id: "2", name: "bob", role: "MEMBER", friends: [ada] };
const robot = { __typename: "Robot", id: "r1", model: "R2" };

function usersRoot(created: string[]) {
  return {
    user: ({ id }: { id: string }) => [ada, bob].find((u) => u.id === id) ?? null,
    users: ({ filter, limit }: { filter?: { name?: string; role?: string }; limit: number }) =>
      [ada, bob].filter((u) => (!filter?.name || u.name === filter.name) && (!filter?.role || u.role === filter.role)).slice(0, limit),
    node: ({ id }: { id: string }) => [ada, bob, robot].find((n) => n.id === id) ?? null,
    things: () => [ada, robot],
    echo: ({ value }: { value: unknown }) => value,
    seen: (_: unknown, request: { headers: Record<string, unknown>; body: unknown }) => ({ headers: request.headers, body: request.body }),
    boom: () => ({ ...ada, name: () => new GraphQLError("name unavailable") }),
    createUser: ({ name }: { name: string }) => {
      created.push(name);
      return { __typename: "User", id: String(10 + created.length), name, role: "MEMBER", friends: [] };
    },
  };
}

describe.each(testBackends)("remote schemas [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  let broken: HandlerServer;
  const created: string[] = [];
  const run = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = ADMIN_HEADERS) =>
    graphql(service, { query, ...(variables ? { variables } : {}) }, headers).then((r) => r.body as Record<string, unknown>);
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const addRemote = (name: string, definition: Record<string, unknown>) =>
    metadata({ type: "add_remote_schema", args: { name, definition } });

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/users", { schema: schemaOf(USERS_SDL), root: usersRoot(created) });
    // Only the field is slow, not the introspection.
    remote.route("/slow", {
      schema: schemaOf("type Query { slow: String }"),
      root: { slow: () => new Promise((resolve) => setTimeout(() => resolve("late"), 1500)) },
    });
    remote.route("/cookies", {
      schema: schemaOf("type Query { cookie: String }"),
      root: { cookie: () => "set" },
      headers: { "Set-Cookie": "remote=1" },
    });
    broken = await startHandlerServer();
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { REMOTE_BASE: remote.url, REMOTE_TOKEN: "from-env" });
    const sqlDone = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: `CREATE TABLE posts (id int PRIMARY KEY, title text NOT NULL);
              INSERT INTO posts VALUES (1, 'p1'), (2, 'p2');`,
      },
    });
    expect(sqlDone.status, JSON.stringify(sqlDone.body)).toBe(200);
    const tracked = await metadata({ type: "pg_track_table", args: { table: "posts" } });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
    await broken?.close();
  });

  it("add_remote_schema fetches the remote's schema and serves its fields", async () => {
    const added = await addRemote("users", {
      url: "{{REMOTE_BASE}}/users",
      headers: [{ name: "X-Static", value: "static" }],
      timeout_seconds: 5,
    });
    expect(added).toEqual({ status: 200, body: { message: "success" } });
    expect(await run("{ user(id: 2) { id name role friends { name } } }")).toEqual({
      data: { user: { id: "2", name: "bob", role: "MEMBER", friends: [{ name: "ada" }] } },
    });
    const exported = await metadata({ type: "export_metadata", args: {} });
    expect((exported.body as { remote_schemas: unknown[] }).remote_schemas).toEqual([
      {
        name: "users",
        definition: {
          url: "{{REMOTE_BASE}}/users",
          headers: [{ name: "X-Static", value: "static" }],
          forward_client_headers: false,
          timeout_seconds: 5,
        },
      },
    ]);
    expect(await metadata({ type: "get_inconsistent_metadata", args: {} })).toMatchObject({ status: 200, body: { is_consistent: true } });
  });

  it("introspect_remote_schema answers the remote's introspection as the remote gave it", async () => {
    const answer = await metadata({ type: "introspect_remote_schema", args: { name: "users" } });
    expect(answer.status).toBe(200);
    const schema = (answer.body as { data: { __schema: { queryType: { name: string }; types: Array<{ name: string }> } } }).data.__schema;
    expect(schema.queryType).toMatchObject({ name: "Query" });
    expect(schema.types.map((t) => t.name)).toEqual(expect.arrayContaining(["User", "Robot", "Thing", "UserFilter", "JSON"]));
    expect(await metadata({ type: "introspect_remote_schema", args: { name: "nope" } })).toEqual({
      status: 400,
      body: { path: "$.args", error: 'remote schema: "nope" not found', code: "not-exists" },
    });
  });

  it("answers tables and remote fields of one query together, in field order", async () => {
    const before = remote.requests.length;
    const body = await run("{ a: users { name } posts(order_by: {id: asc}) { title } b: user(id: 1) { name } __typename }");
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        data: {
          a: [{ name: "ada" }, { name: "bob" }],
          posts: [{ title: "p1" }, { title: "p2" }],
          b: { name: "ada" },
          __typename: "query_root",
        },
      }),
    );
    // One request per remote root field, as Hasura sends them.
    expect(remote.requests.length - before).toBe(2);
  });

  it("sends only the variables a field uses, fragments inlined, with the operation's name", async () => {
    const query = `query Find($f: UserFilter, $id: ID!, $unused: Int) {
      users(filter: $f) { ...U }
      posts_by_pk(id: 1) { title }
      n: node(id: $id) { id ... on User { name } ... on Robot { model } }
    }
    fragment U on User { name role }`;
    const before = remote.requests.length;
    const body = await run(query, { f: { role: "ADMIN" }, id: "r1", unused: 3 });
    expect(body).toEqual({ data: { users: [{ name: "ada", role: "ADMIN" }], posts_by_pk: { title: "p1" }, n: { id: "r1", model: "R2" } } });
    const sent = remote.requests.slice(before).map((r) => r.body);
    const users = sent.find((b) => b.query?.includes("users"));
    expect(users?.operationName).toBe("Find");
    expect(users?.variables).toEqual({ f: { role: "ADMIN" } });
    expect(users?.query).toContain("query Find($f: UserFilter)");
    expect(users?.query).not.toContain("fragment");
    const node = sent.find((b) => b.query?.includes("node"));
    expect(node?.variables).toEqual({ id: "r1" });
  });

  it("serves interfaces and unions, __typename from the remote", async () => {
    expect(await run("{ things { __typename ... on User { name } ... on Robot { model } } node(id: 1) { __typename id } }")).toEqual({
      data: {
        things: [
          { __typename: "User", name: "ada" },
          { __typename: "Robot", model: "R2" },
        ],
        node: { __typename: "User", id: "1" },
      },
    });
  });

  it("passes JSON scalars through and @skip/@include resolved", async () => {
    const body = await run("query ($v: JSON, $no: Boolean!) { echo(value: $v) users @include(if: $no) { name } }", {
      v: { deep: [1, "two", { 'quo"te': null }] },
      no: false,
    });
    expect(body).toEqual({ data: { echo: { deep: [1, "two", { 'quo"te': null }] } } });
  });

  it("answers a remote's errors as Hasura does: data null and the remote's errors, path kept", async () => {
    expect(await run("{ posts { id } boom { id name } }")).toEqual({
      data: null,
      // Locations are the remote's, in the document it was sent (one line, as Hasura lays it out).
      errors: [{ message: "name unavailable", locations: [{ line: 1, column: 21 }], path: ["boom", "name"] }],
    });
  });

  it("validates remote fields against the remote's schema", async () => {
    const body = await run("{ user(id: 1) { nope } }");
    expect(body).toEqual({
      errors: [
        {
          message: "field 'nope' not found in type: 'User'",
          extensions: { path: "$.selectionSet.user.selectionSet.nope", code: "validation-failed" },
        },
      ],
    });
  });

  it("runs a mutation's remote fields in order with the tables' mutations", async () => {
    const body = await run(`mutation {
      insert_posts_one(object: {id: 3, title: "p3"}) { id }
      createUser(name: "cy") { id name }
      delete_posts_by_pk(id: 3) { title }
    }`);
    expect(body).toEqual({
      data: { insert_posts_one: { id: 3 }, createUser: { id: "11", name: "cy" }, delete_posts_by_pk: { title: "p3" } },
    });
    expect(created).toEqual(["cy"]);
  });

  it("sends configured, session and (when asked) client headers, never the client's x-hasura-*", async () => {
    const headersOf = async (name: string, definition: Record<string, unknown>) => {
      expect(
        (await addRemote(name, { url: `${remote.url}/users`, ...definition, customization: { root_fields_namespace: name } })).status,
      ).toBe(200);
      const body = await run(`{ ${name} { seen } }`, undefined, {
        ...ADMIN_HEADERS,
        "x-hasura-role": "user",
        "x-hasura-user-id": "42",
        authorization: "Bearer token",
        "x-custom": "client",
      });
      return ((body.data as Record<string, { seen: { headers: Record<string, string> } }>)[name]?.seen.headers ?? {}) as Record<
        string,
        string
      >;
    };
    const plain = await headersOf("plain", {
      headers: [
        { name: "X-Token", value_from_env: "REMOTE_TOKEN" },
        { name: "x-custom", value: "configured" },
      ],
    });
    expect(plain).toMatchObject({ "x-token": "from-env", "x-custom": "configured", "x-hasura-role": "user", "x-hasura-user-id": "42" });
    expect(plain["content-type"]).toBe("application/json");
    expect(plain["user-agent"]).toMatch(/^hasura-graphql-engine\//);
    expect(plain.authorization).toBeUndefined();
    expect(plain["x-hasura-admin-secret"]).toBeUndefined();
    const forwarded = await headersOf("forwarded", { forward_client_headers: true });
    expect(forwarded).toMatchObject({ authorization: "Bearer token", "x-custom": "client", "x-hasura-role": "user" });
    expect(forwarded["x-hasura-admin-secret"]).toBeUndefined();
    for (const name of ["plain", "forwarded"]) expect((await metadata({ type: "remove_remote_schema", args: { name } })).status).toBe(200);
  });

  it("passes the remote's Set-Cookie on", async () => {
    expect((await addRemote("cookies", { url: `${remote.url}/cookies` })).status).toBe(200);
    const res = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: { query: "{ cookie }" }, headers: ADMIN_HEADERS });
    expect(res.json()).toEqual({ data: { cookie: "set" } });
    expect(res.headers["set-cookie"]).toEqual(["remote=1"]);
    expect((await metadata({ type: "remove_remote_schema", args: { name: "cookies" } })).status).toBe(200);
  });

  it("answers a remote too slow for timeout_seconds with Hasura's http exception", async () => {
    expect((await addRemote("slow", { url: `${remote.url}/slow`, timeout_seconds: 5 })).status).toBe(200);
    expect(
      (
        await metadata({
          type: "update_remote_schema",
          args: { name: "slow", definition: { url: `${remote.url}/slow`, timeout_seconds: 1 } },
        })
      ).status,
    ).toBe(200);
    const body = (await run("{ slow }")) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    expect(body.errors[0]?.message).toBe(`HTTP exception occurred while sending the request to "${remote.url}/slow"`);
    expect(body.errors[0]?.extensions).toMatchObject({
      path: "$",
      code: "remote-schema-error",
      internal: { type: "http_exception", message: "Response timeout" },
    });
    expect((await metadata({ type: "remove_remote_schema", args: { name: "slow" } })).status).toBe(200);
  });

  it("refuses remotes that cannot be fetched or served, with Hasura's errors", async () => {
    expect(await addRemote("users", { url: `${remote.url}/users` })).toEqual({
      status: 400,
      body: { path: "$.args", error: 'remote schema with name "users" already exists', code: "already-exists" },
    });
    expect(await addRemote("nowhere", { url: "http://127.0.0.1:1/graphql" })).toMatchObject({
      status: 400,
      body: {
        path: "$.args",
        error: 'HTTP exception occurred while sending the request to "http://127.0.0.1:1/graphql"',
        code: "remote-schema-error",
      },
    });
    expect(await addRemote("env", { url_from_env: "NOT_SET_ANYWHERE" })).toEqual({
      status: 400,
      body: { path: "$.args", error: "environment variable 'NOT_SET_ANYWHERE' not set", code: "invalid-params" },
    });
    broken.route("/empty-union", () => ({
      body: {
        data: {
          __schema: {
            queryType: { name: "Query" },
            types: [
              { kind: "OBJECT", name: "Query", fields: [{ name: "u", args: [], type: { kind: "UNION", name: "U" } }], interfaces: [] },
              { kind: "UNION", name: "U", possibleTypes: [] },
            ],
          },
        },
      },
    }));
    expect(await addRemote("empty", { url: `${broken.url}/empty-union` })).toEqual({
      status: 400,
      body: { path: "$.args", error: "List of member types cannot be empty for union type 'U'", code: "remote-schema-error" },
    });
    expect(await addRemote("again", { url: `${remote.url}/users` })).toMatchObject({
      status: 400,
      body: {
        path: "$.args",
        code: "invalid-configuration",
        error: expect.stringContaining("Inconsistent object: Duplicate remote field 'user'"),
      },
    });
    expect(await metadata({ type: "remove_remote_schema", args: { name: "nothing" } })).toEqual({
      status: 400,
      body: { path: "$.args", error: "no such remote schema", code: "not-exists" },
    });
    const exported = (await metadata({ type: "export_metadata", args: {} })).body as { remote_schemas: Array<{ name: string }> };
    expect(exported.remote_schemas.map((r) => r.name)).toEqual(["users"]);
  });

  it("refuses a table whose name a remote's root field has (remote-schema-conflicts)", async () => {
    expect((await admin(service, "/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE things (id int);" } })).status).toBe(200);
    expect(await metadata({ type: "pg_track_table", args: { table: "things" } })).toEqual({
      status: 400,
      body: { path: "$.args", error: "node things already exists in current graphql schema", code: "remote-schema-conflicts" },
    });
  });

  it("customizes names: namespace, type prefix/suffix and mapping, field prefix and mapping", async () => {
    const added = await addRemote("custom", {
      url: `${remote.url}/users`,
      customization: {
        root_fields_namespace: "ext",
        type_names: { prefix: "Ext", suffix: "_t", mapping: { Robot: "Droid" } },
        field_names: [
          { parent_type: "User", prefix: "u_", mapping: { id: "ident" } },
          { parent_type: "Node", mapping: { id: "ident" } },
          { parent_type: "Robot", mapping: { id: "ident" } },
          { parent_type: "Query", prefix: "q_" },
        ],
      },
    });
    expect(added).toEqual({ status: 200, body: { message: "success" } });
    const body = await run(
      `query ($f: ExtUserFilter_t, $id: ID!) {
        ext {
          __typename
          q_users(filter: $f) { ident u_name __typename }
          n: q_node(id: $id) { ident __typename ... on Droid { model } }
          q_things { ... on ExtUser_t { u_name } ...R }
        }
      }
      fragment R on Droid { kind: __typename model }`,
      { f: { name: "bob" }, id: "r1" },
    );
    expect(body).toEqual({
      data: {
        ext: {
          __typename: "extQuery",
          q_users: [{ ident: "2", u_name: "bob", __typename: "ExtUser_t" }],
          n: { ident: "r1", __typename: "Droid", model: "R2" },
          q_things: [{ u_name: "ada" }, { kind: "Droid", model: "R2" }],
        },
      },
    });
    const sent = remote.requests.at(-1)?.body.query ?? "";
    expect(sent).not.toContain("Ext");
    const types = (await run('{ __type(name: "ExtUser_t") { fields { name } } }')) as {
      data: { __type: { fields: Array<{ name: string }> } };
    };
    expect(types.data.__type.fields.map((f) => f.name).sort()).toEqual(["ident", "u_friends", "u_name", "u_role"]);
    expect((await metadata({ type: "remove_remote_schema", args: { name: "custom" } })).status).toBe(200);
  });

  it("refuses customizations Hasura refuses", async () => {
    expect(
      await addRemote("bad", {
        url: `${remote.url}/users`,
        customization: { root_fields_namespace: "bad", type_names: { mapping: { User: "X", Robot: "X" } } },
      }),
    ).toEqual({
      status: 400,
      body: {
        path: "$.args",
        error: 'Type name mappings are not distinct; the following types appear more than once: "X"',
        code: "remote-schema-error",
      },
    });
    expect(
      await addRemote("bad", {
        url: `${remote.url}/users`,
        customization: { field_names: [{ parent_type: "User", mapping: { __typename: "t" } }] },
      }),
    ).toEqual({
      status: 400,
      body: { path: "$.args", error: 'attempt to customize reserved field name "__typename"', code: "invalid-params" },
    });
  });

  it("reports a remote unreachable at start-up, keeps serving, and reload fetches it again", async () => {
    expect((await addRemote("later", { url: `${remote.url}/cookies`, customization: { root_fields_namespace: "later" } })).status).toBe(
      200,
    );
    await remote.stop();
    await service.close();
    service = await openService(handle.db, { REMOTE_BASE: remote.url, REMOTE_TOKEN: "from-env" });
    const report = await metadata({ type: "get_inconsistent_metadata", args: {} });
    expect(report.status).toBe(200);
    const objects = (report.body as { inconsistent_objects: Array<Record<string, unknown>> }).inconsistent_objects;
    expect(objects.map((o) => [o.type, o.name])).toEqual([
      ["remote_schema", "remote_schema users"],
      ["remote_schema", "remote_schema later"],
    ]);
    expect(objects[1]).toMatchObject({
      reason: `Inconsistent object: HTTP exception occurred while sending the request to "${remote.url}/cookies"`,
      definition: { name: "later", definition: { url: `${remote.url}/cookies` }, permissions: [], remote_relationships: [] },
    });
    // The database's fields are still served.
    expect(await run("{ posts_by_pk(id: 1) { title } }")).toEqual({ data: { posts_by_pk: { title: "p1" } } });
    expect(((await run("{ later { cookie } }")).errors as unknown[]).length).toBe(1);
    await remote.start();
    expect(await metadata({ type: "reload_remote_schema", args: { name: "later" } })).toEqual({
      status: 200,
      body: { message: "success" },
    });
    expect(await run("{ later { cookie } }")).toEqual({ data: { later: { cookie: "set" } } });
    expect(await metadata({ type: "reload_metadata", args: {} })).toEqual({
      status: 200,
      body: { message: "success", is_consistent: true },
    });
    expect(await run("{ user(id: 1) { name } }")).toEqual({ data: { user: { name: "ada" } } });
  });

  it("replace_metadata refuses an unreachable remote unless allowed; drop_inconsistent_metadata drops it", async () => {
    const current = (await metadata({ type: "export_metadata", args: {} })).body as Record<string, unknown>;
    const gone = { name: "gone", definition: { url: "http://127.0.0.1:1/graphql", forward_client_headers: false } };
    const next = { ...current, remote_schemas: [...(current.remote_schemas as unknown[]), gone] };
    expect(await metadata({ type: "replace_metadata", args: next })).toMatchObject({
      status: 400,
      body: { code: "unexpected", error: "cannot continue due to inconsistent metadata" },
    });
    const allowed = await metadata({ type: "replace_metadata", args: { metadata: next, allow_inconsistent_metadata: true } });
    expect(allowed).toMatchObject({
      status: 200,
      body: {
        is_consistent: false,
        inconsistent_objects: [
          {
            type: "remote_schema",
            name: "remote_schema gone",
            reason: 'Inconsistent object: HTTP exception occurred while sending the request to "http://127.0.0.1:1/graphql"',
            definition: { ...gone, permissions: [], remote_relationships: [] },
          },
        ],
      },
    });
    expect(await run("{ user(id: 2) { name } }")).toEqual({ data: { user: { name: "bob" } } });
    expect((await metadata({ type: "drop_inconsistent_metadata", args: {} })).status).toBe(200);
    const exported = (await metadata({ type: "export_metadata", args: {} })).body as { remote_schemas: Array<{ name: string }> };
    expect(exported.remote_schemas.map((r) => r.name)).toEqual(["users", "later"]);
  });

  it("reload_remote_schema refuses a remote that became unreachable", async () => {
    await remote.stop();
    const reloaded = await metadata({ type: "reload_remote_schema", args: { name: "later" } });
    expect(reloaded).toMatchObject({
      status: 500,
      body: { code: "unexpected", error: "cannot continue due to newly found inconsistent metadata" },
    });
    await remote.start();
    expect((await metadata({ type: "reload_remote_schema", args: { name: "later" } })).status).toBe(200);
    expect((await metadata({ type: "remove_remote_schema", args: { name: "later" } })).status).toBe(200);
    expect(await metadata({ type: "reload_remote_schema", args: { name: "later" } })).toEqual({
      status: 400,
      body: { path: "$.args", error: 'remote schema with name "later" does not exist', code: "not-exists" },
    });
  });
});
