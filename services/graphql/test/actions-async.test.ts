/**
 * Asynchronous actions (https://hasura.io/docs/latest/actions/async-actions/): the mutation
 * answers an id at once, the call is stored in hdb_catalog.hdb_action_log and delivered by the
 * worker of any engine instance (each call once, however many instances poll), and the query
 * field of the same name reads the result back for the session that made the call, as Hasura's
 * own tests (server/tests-py/test_actions.py TestActionsAsync) expect it.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const asUser = (id: string) => ({ ...ADMIN_HEADERS, "x-hasura-role": "user", "x-hasura-user-id": id });

describe.each(testBackends)("asynchronous actions [%s]", (backend) => {
  let handle: TestDatabase;
  let services: Service[];
  let handler: HandlerServer;
  const run = (query: string, headers: Record<string, string> = ADMIN_HEADERS, variables?: Record<string, unknown>, at = 0) =>
    graphql(services[at] as Service, { query, ...(variables ? { variables } : {}) }, headers).then(
      (r) => r.body as Record<string, unknown>,
    );

  /** Reads the call back until the worker has delivered it. */
  async function result(id: string, selection: string, headers: Record<string, string> = ADMIN_HEADERS, name = "create_user") {
    for (let i = 0; i < 100; i++) {
      const body = await run(`query ($id: uuid!) { ${name}(id: $id) { ${selection} } }`, headers, { id });
      const data = (body.data as Record<string, Record<string, unknown> | null> | undefined)?.[name];
      if (!data || (data.output ?? null) !== null || (data.errors ?? null) !== null) return body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the call was never delivered");
  }

  beforeAll(async () => {
    handler = await startHandlerServer();
    handle = await openTestDatabase(backend);
    const env = {
      ACTION_BASE: handler.url,
      HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL: "50",
      HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "100",
    };
    // Two engine instances over one database, both delivering calls.
    services = [await openService(handle.db, env), await openService(handle.db, env)];
    const created = await admin(services[0] as Service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL); INSERT INTO users VALUES (1, 'ada');" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const setup = await admin(services[0] as Service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "users" } },
        {
          type: "pg_create_select_permission",
          args: { table: "users", role: "user", permission: { columns: ["name"], filter: {} } },
        },
        {
          type: "set_custom_types",
          args: {
            objects: [
              {
                name: "UserId",
                fields: [{ name: "id", type: "Int!" }],
                relationships: [{ name: "user", type: "object", remote_table: "users", field_mapping: { id: "id" } }],
              },
            ],
          },
        },
        {
          type: "create_action",
          args: {
            name: "create_user",
            definition: {
              kind: "asynchronous",
              arguments: [{ name: "name", type: "String!" }],
              output_type: "UserId",
              handler: "{{ACTION_BASE}}/create",
              forward_client_headers: true,
            },
          },
        },
        { type: "create_action_permission", args: { action: "create_user", role: "user" } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    // Each reload is picked up by the second instance's poll; wait until it serves the action.
    let served = false;
    for (let i = 0; i < 100 && !served; i++) {
      const body = await run(`{ __type(name: "mutation_root") { name } }`, ADMIN_HEADERS, undefined, 1);
      served = Boolean((body.data as { __type: unknown } | undefined)?.__type);
      if (!served) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(served).toBe(true);
  });
  afterAll(async () => {
    for (const service of services ?? []) await service.close();
    await handle?.dispose();
    await handler?.close();
  });

  it("answers the mutation with an id at once and the output, with relationships, once the handler has answered", async () => {
    handler.route("/create", () => ({ body: { id: 1 }, delayMs: 100 }));
    const started = Date.now();
    const body = (await run(`mutation { create_user(name: "ada") }`, { ...asUser("7"), authorization: "Bearer t" })) as {
      data: { create_user: string };
    };
    expect(Date.now() - started).toBeLessThan(100);
    const id = body.data.create_user;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await result(id, "__typename id output { __typename id user { name } } errors", asUser("7"));
    expect(read).toEqual({
      data: {
        create_user: { __typename: "create_user", id, output: { __typename: "UserId", id: 1, user: { name: "ada" } }, errors: null },
      },
    });
    // The handler got the caller's session and input, the client's headers (never x-hasura-*), and no query.
    const received = handler.received.find((r) => r.path === "/create");
    expect(received?.body).toEqual({
      action: { name: "create_user" },
      input: { name: "ada" },
      session_variables: { "x-hasura-role": "user", "x-hasura-user-id": "7" },
    });
    expect(received?.headers.authorization).toBe("Bearer t");
    expect(received?.headers["x-hasura-admin-secret"]).toBeUndefined();
    const { rows } = await handle.db.query<{ headers: string }>(
      sql`SELECT request_headers::text AS headers FROM hdb_catalog.hdb_action_log`,
    );
    for (const row of rows) expect(row.headers).not.toMatch(/x-hasura/i);
  });

  it("serves the call's result to a subscription, pushed once the handler has answered", async () => {
    handler.route("/create", () => ({ body: { id: 1 }, delayMs: 300 }));
    const body = (await run(`mutation { create_user(name: "ada") }`, asUser("7"))) as { data: { create_user: string } };
    const id = body.data.create_user;
    const pushed: unknown[] = [];
    const session = {
      role: "user",
      variables: { "x-hasura-role": "user", "x-hasura-user-id": "7" },
      isAdmin: false,
      useBackendOnly: false,
    };
    const started = await (services[0] as Service).runtime.start(
      { query: "subscription ($id: uuid!) { create_user(id: $id) { id output { id user { name } } errors } }", variables: { id } },
      session,
      {},
      { push: (text) => pushed.push(JSON.parse(text)) },
    );
    if (started.kind !== "subscription") throw new Error(started.response.body);
    try {
      for (let i = 0; i < 100 && pushed.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      // First the call as it waits, then (only once it changed) with the handler's output.
      expect(pushed).toEqual([
        { data: { create_user: { id, output: null, errors: null } } },
        { data: { create_user: { id, output: { id: 1, user: { name: "ada" } }, errors: null } } },
      ]);
    } finally {
      started.stop();
    }
  });

  it("answers the call only to the session that made it (the admin reads any)", async () => {
    handler.route("/create", () => ({ body: { id: 1 } }));
    const body = (await run(`mutation { create_user(name: "x") }`, asUser("8"))) as { data: { create_user: string } };
    const id = body.data.create_user;
    await result(id, "id output { id }", asUser("8"));
    expect(await run(`query ($id: uuid!) { create_user(id: $id) { id } }`, asUser("9"), { id })).toEqual({ data: { create_user: null } });
    expect(await run(`query ($id: uuid!) { create_user(id: $id) { id } }`, ADMIN_HEADERS, { id })).toEqual({
      data: { create_user: { id } },
    });
  });

  it("records a handler's error as Hasura does: {code, path, error}", async () => {
    handler.route("/create", () => ({ status: 400, body: { message: "Given email address is not valid", code: "invalid-email" } }));
    const body = (await run(`mutation { create_user(name: "bad") }`)) as { data: { create_user: string } };
    const read = await result(body.data.create_user, "output { id } errors");
    expect(read).toEqual({
      data: { create_user: { output: null, errors: { code: "invalid-email", path: "$", error: "Given email address is not valid" } } },
    });
    handler.route("/create", () => ({ raw: "nope" }));
    const bad = (await run(`mutation { create_user(name: "bad") }`)) as { data: { create_user: string } };
    expect(await result(bad.data.create_user, "errors")).toEqual({
      data: { create_user: { errors: { code: "unexpected", path: "$", error: "not a valid json response from webhook" } } },
    });
  });

  it("delivers each call once while two instances poll", async () => {
    handler.route("/create", () => ({ body: { id: 1 }, delayMs: 20 }));
    const before = handler.received.filter((r) => r.path === "/create").length;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const body = (await run(`mutation { create_user(name: "n${i}") }`, ADMIN_HEADERS, undefined, i % 2)) as {
        data: { create_user: string };
      };
      expect(body.data, JSON.stringify(body)).toBeDefined();
      ids.push(body.data.create_user);
    }
    for (const id of ids) await result(id, "output { id }");
    const delivered = handler.received.filter((r) => r.path === "/create").slice(before);
    expect(delivered).toHaveLength(20);
    expect(new Set(delivered.map((r) => (r.body.input as { name: string }).name)).size).toBe(20);
    const { rows } = await handle.db.query<{ status: string; n: string }>(
      sql`SELECT status, count(*)::text AS n FROM hdb_catalog.hdb_action_log WHERE id = ANY(${ids}::uuid[]) GROUP BY status`,
    );
    expect(rows).toEqual([{ status: "completed", n: "20" }]);
  });

  it("drop_action clears the action's stored calls unless clear_data is false, as Hasura does", async () => {
    const count = async () =>
      (
        await handle.db.query<{ n: string }>(
          sql`SELECT count(*)::text AS n FROM hdb_catalog.hdb_action_log WHERE action_name = 'create_user'`,
        )
      ).rows[0]?.n;
    expect(Number(await count())).toBeGreaterThan(0);
    const definition = {
      kind: "asynchronous",
      arguments: [{ name: "name", type: "String!" }],
      output_type: "UserId",
      handler: "{{ACTION_BASE}}/create",
    };
    const kept = await admin(services[0] as Service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "drop_action", args: { name: "create_user", clear_data: false } },
        { type: "create_action", args: { name: "create_user", definition } },
      ],
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(Number(await count())).toBeGreaterThan(0);
    const cleared = await admin(services[0] as Service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "drop_action", args: { name: "create_user" } },
        { type: "create_action", args: { name: "create_user", definition } },
      ],
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(await count()).toBe("0");
  });

  it("refuses an asynchronous action whose output relationships would have to cross a nested object, as Hasura does", async () => {
    const refused = await admin(services[0] as Service, "/v1/metadata", {
      type: "bulk",
      args: [
        {
          type: "set_custom_types",
          args: {
            objects: [
              {
                name: "UserId",
                fields: [{ name: "id", type: "Int!" }],
                relationships: [{ name: "user", type: "object", remote_table: "users", field_mapping: { id: "id" } }],
              },
              { name: "Inner", fields: [{ name: "x", type: "Int" }] },
              {
                name: "Nested",
                fields: [
                  { name: "id", type: "Int!" },
                  { name: "inner", type: "Inner" },
                ],
                relationships: [{ name: "user", type: "object", remote_table: "users", field_mapping: { id: "id" } }],
              },
            ],
          },
        },
        {
          type: "create_action",
          args: { name: "nested_fail", definition: { kind: "asynchronous", output_type: "Nested", handler: "http://127.0.0.1:1/x" } },
        },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "invalid-configuration",
      error: 'Inconsistent object: in action "nested_fail"; Async action relations cannot be used with object fields: "inner"',
    });
  });
});
