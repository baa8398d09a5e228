/**
 * Synchronous actions (https://hasura.io/docs/latest/actions/overview/) driven through /v1/graphql
 * against a real HTTP handler server: Hasura's payload, headers (configured, from the
 * environment, forwarded), the answer checked against the output type and shaped to the
 * selection, relationships to tables under the caller's permissions, action permissions, and
 * every failure answered with Hasura's message and code
 * (server/src-lib/Hasura/GraphQL/Execute/Action.hs).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const asUser = (id: string) => ({ ...ADMIN_HEADERS, "x-hasura-role": "user", "x-hasura-user-id": id });

const TYPES = {
  enums: [{ name: "Mood", values: [{ value: "happy" }, { value: "sad" }] }],
  scalars: [{ name: "Blob" }],
  input_objects: [
    {
      name: "NewUser",
      fields: [
        { name: "name", type: "String!" },
        { name: "tags", type: "[String!]" },
        { name: "mood", type: "Mood" },
      ],
    },
  ],
  objects: [
    {
      name: "UserRef",
      fields: [
        { name: "id", type: "Int!" },
        { name: "label", type: "String" },
        { name: "mood", type: "Mood" },
        { name: "nested", type: "Inner" },
        { name: "many", type: "[Inner]" },
      ],
      relationships: [
        { name: "user", type: "object", remote_table: "users", field_mapping: { id: "id" } },
        { name: "posts", type: "array", remote_table: "posts", field_mapping: { id: "author_id" } },
      ],
    },
    {
      name: "Inner",
      fields: [
        { name: "city", type: "String" },
        { name: "zip", type: "Int!" },
      ],
    },
  ],
};

function action(name: string, route: string, output: string, extra: Record<string, unknown> = {}) {
  return {
    type: "create_action",
    args: { name, definition: { kind: "synchronous", output_type: output, handler: `{{ACTION_BASE}}${route}`, ...extra } },
  };
}

describe.each(testBackends)("synchronous actions [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let handler: HandlerServer;
  const run = (query: string, headers: Record<string, string> = ADMIN_HEADERS, variables?: Record<string, unknown>) =>
    graphql(service, { query, ...(variables ? { variables } : {}) }, headers).then((r) => r.body as Record<string, unknown>);
  const lastBody = () => handler.received.at(-1)?.body as Record<string, unknown>;

  beforeAll(async () => {
    handler = await startHandlerServer();
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { ACTION_BASE: handler.url, ACTION_TOKEN: "from-env" });
    const created = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: `CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
              CREATE TABLE posts (id int PRIMARY KEY, author_id int NOT NULL REFERENCES users (id), title text NOT NULL);
              INSERT INTO users VALUES (1, 'ada'), (2, 'bob');
              INSERT INTO posts VALUES (1, 1, 'p1'), (2, 1, 'p2'), (3, 2, 'p3');`,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const setup = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "users" } },
        { type: "pg_track_table", args: { table: "posts" } },
        {
          type: "pg_create_select_permission",
          args: { table: "users", role: "user", permission: { columns: ["id", "name"], filter: { id: "X-Hasura-User-Id" } } },
        },
        {
          type: "pg_create_select_permission",
          args: { table: "posts", role: "user", permission: { columns: ["title"], filter: { author_id: "X-Hasura-User-Id" } } },
        },
        { type: "set_custom_types", args: TYPES },
        action("who", "/who", "UserRef", {
          type: "query",
          arguments: [
            { name: "id", type: "Int!" },
            { name: "user", type: "NewUser" },
          ],
        }),
        action("many", "/many", "[UserRef!]!", { type: "query" }),
        action("signup", "/signup", "UserRef!", { arguments: [{ name: "users", type: "[NewUser!]!" }] }),
        action("word", "/word", "String!", { type: "query" }),
        action("by_uuid", "/word", "String!", {
          type: "query",
          arguments: [
            { name: "id", type: "uuid!" },
            { name: "at", type: "timestamptz" },
          ],
        }),
        action("blob", "/blob", "Blob", { type: "query" }),
        action("jsonb_out", "/blob", "jsonb!", { type: "query" }),
        action("headers_out", "/headers", "String", {
          type: "query",
          headers: [
            { name: "X-Static", value: "static" },
            { name: "X-Token", value_from_env: "ACTION_TOKEN" },
          ],
        }),
        action("forwarding", "/forwarding", "String", { type: "query", forward_client_headers: true }),
        action("slow", "/slow", "String", { type: "query", timeout: 1 }),
        action("nowhere", "/x", "String", { type: "query" }),
        { type: "create_action_permission", args: { action: "who", role: "user" } },
        { type: "create_action_permission", args: { action: "many", role: "user" } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await handler?.close();
  });

  it("posts Hasura's payload: the action's name, the input as given, the session and the query", async () => {
    handler.route("/who", () => ({ body: { id: 1, label: "first" } }));
    const query = `query ($u: NewUser) { who(id: 1, user: $u) { id label } }`;
    const body = await run(query, asUser("1"), { u: { name: "ada", tags: "one", mood: "happy" } });
    expect(body).toEqual({ data: { who: { id: 1, label: "first" } } });
    expect(lastBody()).toEqual({
      action: { name: "who" },
      // A single value given for a list is a list (GraphQL input coercion).
      input: { id: 1, user: { name: "ada", tags: ["one"], mood: "happy" } },
      session_variables: { "x-hasura-role": "user", "x-hasura-user-id": "1" },
      request_query: query,
    });
  });

  it("passes input values of Postgres scalars through unchecked, as Hasura does (the handler decides)", async () => {
    handler.route("/word", () => ({ body: "ok" }));
    expect(await run(`{ by_uuid(id: "not-a-uuid", at: 12) }`)).toEqual({ data: { by_uuid: "ok" } });
    expect(lastBody().input).toEqual({ id: "not-a-uuid", at: 12 });
    expect(await run(`query ($id: uuid!) { by_uuid(id: $id) }`, ADMIN_HEADERS, { id: "also-not" })).toEqual({ data: { by_uuid: "ok" } });
    expect(lastBody().input).toEqual({ id: "also-not" });
    // GraphQL's own scalars are still GraphQL's.
    const refused = (await run(`{ who(id: "one") { id } }`)) as { errors: Array<{ extensions: { code: string } }> };
    expect(refused.errors[0]?.extensions.code).toBe("validation-failed");
  });

  it("shapes the answer to the selection: aliases, __typename, nested objects and lists, missing nullable fields as null", async () => {
    handler.route("/who", () => ({
      body: { id: 2, extra: "ignored", nested: { zip: 1, city: "Oslo" }, many: [{ zip: 2 }, null], mood: "sad" },
    }));
    const body = await run(`{ who(id: 2) { __typename key: id label mood nested { zip city } many { zip city } } }`);
    expect(body).toEqual({
      data: {
        who: {
          __typename: "UserRef",
          key: 2,
          label: null,
          mood: "sad",
          nested: { zip: 1, city: "Oslo" },
          many: [{ zip: 2, city: null }, null],
        },
      },
    });
  });

  it("joins relationships to tables under the caller's select permissions, one statement per action field", async () => {
    handler.route("/many", () => ({ body: [{ id: 1 }, { id: 2 }] }));
    const query = `{ many { id user { name } posts(order_by: {title: desc}) { title } } }`;
    expect(await run(query)).toEqual({
      data: {
        many: [
          { id: 1, user: { name: "ada" }, posts: [{ title: "p2" }, { title: "p1" }] },
          { id: 2, user: { name: "bob" }, posts: [{ title: "p3" }] },
        ],
      },
    });
    // Role user with X-Hasura-User-Id 2 reads only user 2 and its posts.
    expect(await run(query, asUser("2"))).toEqual({
      data: {
        many: [
          { id: 1, user: null, posts: [] },
          { id: 2, user: { name: "bob" }, posts: [{ title: "p3" }] },
        ],
      },
    });
    expect(await run(`{ many { id posts_aggregate { aggregate { count } } } }`)).toEqual({
      data: {
        many: [
          { id: 1, posts_aggregate: { aggregate: { count: 2 } } },
          { id: 2, posts_aggregate: { aggregate: { count: 1 } } },
        ],
      },
    });
  });

  it("answers table fields and actions of one query together, in the query's order", async () => {
    handler.route("/who", () => ({ body: { id: 1 } }));
    expect(await run(`{ a: users(order_by: {id: asc}) { name } who(id: 1) { id } b: __typename }`)).toEqual({
      data: { a: [{ name: "ada" }, { name: "bob" }], who: { id: 1 }, b: "query_root" },
    });
  });

  it("hides an action from a role without its permission; the relationship to a table it cannot read is absent", async () => {
    const body = await run(`{ word }`, asUser("1"));
    expect(body).toEqual({
      errors: [
        { message: "field 'word' not found in type: 'query_root'", extensions: { path: "$.selectionSet.word", code: "validation-failed" } },
      ],
    });
    const schema = await run(`{ __type(name: "UserRef") { fields { name } } }`, { ...ADMIN_HEADERS, "x-hasura-role": "guest" });
    expect(schema).toEqual({ data: { __type: null } });
  });

  it("runs mutation actions in order after the table mutations before them", async () => {
    handler.route("/signup", (r) => ({ body: { id: ((r.body.input as { users: unknown[] }).users.length as number) + 40 } }));
    const body = await run(
      `mutation { first: insert_users_one(object: {id: 7, name: "cy"}) { id } signup(users: [{name: "x"}, {name: "y"}]) { id user { name } } }`,
    );
    expect(body).toEqual({ data: { first: { id: 7 }, signup: { id: 42, user: null } } });
  });

  it("passes Postgres and custom scalars through unshaped", async () => {
    handler.route("/blob", () => ({ body: { any: [1, "two", { three: 3 }] } }));
    expect(await run(`{ blob jsonb_out }`)).toEqual({
      data: { blob: { any: [1, "two", { three: 3 }] }, jsonb_out: { any: [1, "two", { three: 3 }] } },
    });
  });

  it("refuses answers that do not fit the output type, with Hasura's messages", async () => {
    const cases: Array<[string, unknown, string]> = [
      ["{ word }", null, "got null for the action webhook response"],
      ["{ word }", 12, "got scalar String for the action webhook response, expecting String"],
      ["{ word }", { a: 1 }, "got object for the action webhook response, expecting String"],
      ["{ word }", ["a"], "got array for the action webhook response, expecting String"],
      ["{ many { id } }", { id: 1 }, "expecting array for the action webhook response"],
      ["{ many { id } }", [null], "got null for the action webhook response"],
      ["{ who(id: 1) { id } }", "text", "got scalar String for the action webhook response, expecting UserRef"],
      ["{ who(id: 1) { id } }", { label: "x" }, 'field "id" expected in webhook response, but not found'],
      ["{ who(id: 1) { id } }", { id: null }, 'expecting not null value for field "id"'],
    ];
    for (const [query, answer, message] of cases) {
      for (const route of ["/word", "/many", "/who"]) handler.route(route, () => ({ body: answer }));
      const body = (await run(query)) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
      expect(body.errors?.[0]?.message, query).toBe(message);
      expect(body.errors[0]?.extensions.code).toBe("unexpected");
      // The admin sees the exchange; the handler URL is reported as configured (its template).
      expect(body.errors[0]?.extensions.internal).toMatchObject({
        error: "unexpected response",
        response: { status: 200, body: answer },
        request: { url: expect.stringMatching(/^\{\{ACTION_BASE\}\}\//) },
      });
    }
    handler.route("/who", () => ({ body: { id: null } }));
    const asRole = (await run("{ who(id: 1) { id } }", asUser("1"))) as { errors: Array<{ extensions: Record<string, unknown> }> };
    expect(asRole.errors[0]?.extensions).toEqual({ path: "$", code: "unexpected" });
  });

  it("answers a handler's 4xx error as Hasura does: its code, or its extensions in place of the engine's", async () => {
    const answers: Array<[unknown, unknown]> = [
      [
        { message: "bad email", code: "invalid-email" },
        { message: "bad email", extensions: { path: "$", code: "invalid-email" } },
      ],
      [{ message: "plain" }, { message: "plain", extensions: { path: "$", code: "unexpected" } }],
      [
        { message: "own", code: "ignored", extensions: { foo: "bar", code: "mine" } },
        { message: "own", extensions: { foo: "bar", code: "mine" } },
      ],
    ];
    for (const [answer, error] of answers) {
      handler.route("/who", () => ({ status: 400, body: answer }));
      expect(await run("{ who(id: 1) { id } }", asUser("1"))).toEqual({ errors: [error] });
    }
  });

  it("answers unreachable handlers, bad JSON, other statuses and timeouts with Hasura's errors", async () => {
    const failing = async (query: string) =>
      (await run(query)) as { errors: Array<{ message: string; extensions: Record<string, unknown> }> };
    handler.route("/word", () => ({ raw: "not json" }));
    let body = await failing("{ word }");
    expect(body.errors[0]?.message).toBe("not a valid json response from webhook");
    expect(body.errors[0]?.extensions.internal).toMatchObject({ response: { body: "not json" } });
    handler.route("/word", () => ({ status: 503, body: { message: "down" } }));
    body = await failing("{ word }");
    expect(body.errors[0]?.message).toBe("internal error");
    expect(body.errors[0]?.extensions.internal).toMatchObject({ error: "expecting 2xx or 4xx status code, but found 503" });
    handler.route("/slow", () => ({ body: "late", delayMs: 1500 }));
    body = await failing("{ slow }");
    expect(body.errors[0]).toMatchObject({ message: "http exception when calling webhook", extensions: { code: "unexpected" } });
    const closed = await startHandlerServer();
    await closed.close();
    await admin(service, "/v1/metadata", {
      type: "update_action",
      args: { name: "nowhere", definition: { type: "query", output_type: "String", handler: `${closed.url}/x` } },
    });
    body = await failing("{ nowhere }");
    expect(body.errors[0]).toMatchObject({ message: "http exception when calling webhook", extensions: { path: "$", code: "unexpected" } });
  });

  it("sends configured headers, values from the environment, and forwards client headers only when asked (never x-hasura-*)", async () => {
    handler.route("/headers", () => ({ body: "ok" }));
    handler.route("/forwarding", () => ({ body: "ok" }));
    await run("{ headers_out }", { ...ADMIN_HEADERS, authorization: "Bearer client" });
    let headers = handler.received.at(-1)?.headers ?? {};
    expect(headers["x-static"]).toBe("static");
    expect(headers["x-token"]).toBe("from-env");
    expect(headers.authorization).toBeUndefined();
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toMatch(/^hasura-graphql-engine\/v2\./);
    await run("{ forwarding }", { ...ADMIN_HEADERS, authorization: "Bearer client", "x-hasura-role": "admin", "x-custom": "yes" });
    headers = handler.received.at(-1)?.headers ?? {};
    expect(headers.authorization).toBe("Bearer client");
    expect(headers["x-custom"]).toBe("yes");
    expect(headers["x-forwarded-host"]).toBeDefined();
    expect(headers["x-hasura-admin-secret"]).toBeUndefined();
    expect(headers["x-hasura-role"]).toBeUndefined();
  });

  it("passes a handler's Set-Cookie on to the client and reports its headers with their names as sent", async () => {
    handler.route("/word", () => ({ body: "ok", headers: { "Set-Cookie": "session=abc" } }));
    const res = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: { query: "{ word }" }, headers: ADMIN_HEADERS });
    expect(res.json()).toEqual({ data: { word: "ok" } });
    expect(res.headers["set-cookie"]).toEqual(["session=abc"]);
    handler.route("/word", () => ({ body: 1, headers: { "Set-Cookie": "s=1" } }));
    const body = (await run("{ word }")) as { errors: Array<{ extensions: { internal: { response: { headers: unknown[] } } } }> };
    expect(body.errors[0]?.extensions.internal.response.headers).toEqual(
      expect.arrayContaining([
        { name: "Content-Type", value: "application/json" },
        { name: "Set-Cookie", value: "s=1" },
      ]),
    );
  });

  it("stops reporting served actions and custom types as inconsistent", async () => {
    const report = await admin(service, "/v1/metadata", { type: "get_inconsistent_metadata", args: {} });
    expect(report.body).toEqual({ is_consistent: true });
  });
});
