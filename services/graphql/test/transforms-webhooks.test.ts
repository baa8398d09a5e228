/**
 * REST connectors end to end (https://hasura.io/docs/latest/actions/rest-connectors/,
 * https://hasura.io/docs/latest/event-triggers/rest-connectors/): request and response
 * transforms created through the metadata API and applied by the engine to a real local HTTP
 * server, for a synchronous action, an event trigger, a cron trigger and a one-off scheduled event
 * (kept in two columns of our own); Hasura's errors when a
 * template does not parse or a transform fails; test_webhook_transform.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const asUser = { ...ADMIN_HEADERS, "x-hasura-role": "user", "x-hasura-user-id": "42" };

describe.each(testBackends)("request and response transforms on %s", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let server: HandlerServer;
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const at = (path: string) => server.received.filter((r) => r.path.replace(/\?.*$/s, "") === path);

  beforeAll(async () => {
    server = await startHandlerServer();
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { HANDLER: server.url, HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200" });
    const created = await admin(service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)" },
    });
    expect(created.status).toBe(200);
    const setup = await metadata({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "note" } },
        {
          type: "set_custom_types",
          args: {
            objects: [
              {
                name: "Lookup",
                fields: [
                  { name: "id", type: "Int!" },
                  { name: "label", type: "String!" },
                ],
              },
            ],
          },
        },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await server?.close();
    await handle?.dispose();
  });

  it("calls an action's handler as its request transform says, and shapes the answer with its response transform", async () => {
    server.route("/lookup", (r) => ({ status: 200, body: { item: { code: 7, name: `found ${r.text}` } } }));
    const created = await metadata({
      type: "create_action",
      args: {
        name: "lookup",
        definition: {
          kind: "synchronous",
          type: "query",
          arguments: [{ name: "term", type: "String!" }],
          output_type: "Lookup",
          handler: "{{HANDLER}}",
          request_transform: {
            version: 2,
            template_engine: "Kriti",
            method: "PUT",
            url: "{{$base_url}}/lookup",
            query_params: { q: "{{$body.input.term}}", by: '{{getSessionVariable("x-hasura-user-id")}}' },
            request_headers: {
              remove_headers: ["content-type"],
              add_headers: { "content-type": "application/x-www-form-urlencoded", "x-action": "{{$body.action.name}}" },
            },
            body: {
              action: "x_www_form_urlencoded",
              form_template: { term: "{{$body.input.term}}", role: "{{$session_variables['x-hasura-role']}}" },
            },
          },
          response_transform: {
            version: 2,
            body: { action: "transform", template: '{"id": {{$body.item.code}}, "label": "{{$body.item.name}} ({{$response.status}})"}' },
          },
        },
      },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    expect((await metadata({ type: "create_action_permission", args: { action: "lookup", role: "user" } })).status).toBe(200);
    const answer = await graphql(service, { query: '{ lookup(term: "red car") { id label } }' }, asUser);
    expect(answer.body).toEqual({ data: { lookup: { id: 7, label: "found term=red%20car&role=user (200)" } } });
    const received = at("/lookup").at(-1);
    expect(received?.method).toBe("PUT");
    expect(received?.path).toBe("/lookup?q=red+car&by=42");
    expect(received?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(received?.headers["x-action"]).toBe("lookup");
  });

  it("answers Hasura's errors: a template that does not parse, and a transform that fails while the action runs", async () => {
    const definition = {
      kind: "synchronous",
      type: "query",
      arguments: [{ name: "term", type: "String!" }],
      output_type: "Lookup",
      handler: "{{HANDLER}}",
    };
    const refused = await metadata({
      type: "create_action",
      args: { name: "broken", definition: { ...definition, request_transform: { version: 2, url: "{{$base_url}/x" } } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "validation-failed", error: "request transform validation failed", path: "$" });
    expect((refused.body as { internal: unknown[] }).internal[0]).toMatchObject({
      error_code: "Parse Error",
      source_position: { start_line: 0 },
    });
    const shape = await metadata({
      type: "create_action",
      args: { name: "broken", definition: { ...definition, response_transform: { version: 7 } } },
    });
    expect(shape.body).toMatchObject({ code: "parse-failed", path: "$.args.definition.response_transform.version" });

    const before = server.received.length;
    const create = await metadata({
      type: "create_action",
      args: {
        name: "failing",
        definition: {
          ...definition,
          request_transform: { version: 2, body: { action: "transform", template: "{{$body.input.missing}}" } },
        },
      },
    });
    expect(create.status).toBe(200);
    const answer = await graphql(service, { query: '{ failing(term: "x") { id } }' }, ADMIN_HEADERS);
    expect(answer.body).toEqual({
      errors: [
        {
          message: "Request Transformation Failed",
          extensions: {
            path: "$",
            code: "unexpected",
            internal: [expect.objectContaining({ error_code: "Attribute Error", message: "'Object' has no attribute 'missing'." })],
          },
        },
      ],
    });
    // The handler is never called.
    expect(server.received.length).toBe(before);

    // A header value node refuses to send (a line break from the input) is an HTTP exception, not a fault.
    const newline = await metadata({
      type: "create_action",
      args: {
        name: "newline",
        definition: {
          ...definition,
          request_transform: { version: 2, request_headers: { add_headers: { "x-term": "{{$body.input.term}}" } } },
        },
      },
    });
    expect(newline.status).toBe(200);
    const refusedHeader = await graphql(service, { query: '{ newline(term: "a\\nb") { id } }' }, ADMIN_HEADERS);
    expect(refusedHeader.body).toMatchObject({
      errors: [{ message: "http exception when calling webhook", extensions: { code: "unexpected" } }],
    });

    // A transformed call's other errors report the request as the transform made it.
    server.route("/down", () => ({ status: 503, body: { message: "down" } }));
    const down = await metadata({
      type: "create_action",
      args: { name: "down", definition: { ...definition, request_transform: { version: 2, method: "PATCH", url: "{{$base_url}}/down" } } },
    });
    expect(down.status).toBe(200);
    const failed = await graphql(service, { query: '{ down(term: "x") { id } }' }, ADMIN_HEADERS);
    const error = (failed.body as { errors: Array<{ message: string; extensions: { internal: { request: Record<string, unknown> } } }> })
      .errors[0];
    expect(error?.message).toBe("internal error");
    expect(error?.extensions.internal.request).toMatchObject({
      url: "{{HANDLER}}",
      transformed_request: { method: "PATCH", url: `${server.url}/down`, query_string: "" },
    });
  });

  it("delivers an event as its trigger's request transform says, logs what was sent, and errs at once when the transform fails", async () => {
    server.route("/notes", () => ({ status: 200, body: { stored: true, detail: "x" } }));
    const created = await metadata({
      type: "pg_create_event_trigger",
      args: {
        table: "note",
        name: "note_created",
        webhook: "{{HANDLER}}/notes",
        insert: { columns: "*" },
        request_transform: {
          version: 2,
          query_params: { op: "{{$body.event.op}}" },
          request_headers: { add_headers: { "x-note": "{{$body.event.data.new.id}}" } },
          body: { action: "transform", template: '{"text": {{$body.event.data.new.body}}, "length": {{size($body.event.data.new.body)}}}' },
        },
        response_transform: { version: 2, body: { action: "transform", template: "{{$body.stored}}" } },
      },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    await graphql(service, { query: 'mutation { insert_note_one(object: {body: "hello"}) { id } }' }, ADMIN_HEADERS);
    await until(() => at("/notes").length === 1, 10_000);
    const received = at("/notes")[0];
    expect(received?.path).toBe("/notes?op=INSERT");
    expect(received?.body).toEqual({ text: "hello", length: 5 });
    expect(received?.headers["x-note"]).toMatch(/^\d+$/);
    const logged = async () =>
      (
        await handle.db.query<{ request: { payload: unknown }; response: { data: { body: string } } }>(
          sql`SELECT request, response FROM hdb_catalog.event_invocation_logs WHERE trigger_name = 'note_created'`,
        )
      ).rows;
    await until(async () => (await logged()).length === 1);
    const [log] = await logged();
    expect(log?.request.payload).toEqual({ text: "hello", length: 5 });
    expect(log?.response.data.body).toBe("true");

    // A transform that fails sends nothing, logs no invocation and marks the event as an error, retries or not.
    await metadata({
      type: "pg_create_event_trigger",
      args: {
        table: "note",
        name: "note_failing",
        webhook: "{{HANDLER}}/never",
        insert: { columns: "*" },
        retry_conf: { num_retries: 3, interval_sec: 1 },
        request_transform: { version: 2, body: { action: "transform", template: "{{$body.event.data.new.nope}}" } },
      },
    });
    await graphql(service, { query: 'mutation { insert_note_one(object: {body: "again"}) { id } }' }, ADMIN_HEADERS);
    const state = async () =>
      (
        await handle.db.query<{ error: boolean; invocations: number }>(
          sql`SELECT e.error, (SELECT count(*)::int FROM hdb_catalog.event_invocation_logs l WHERE l.event_id = e.id) AS invocations
          FROM hdb_catalog.event_log e WHERE e.trigger_name = 'note_failing'`,
        )
      ).rows;
    await until(async () => (await state())[0]?.error === true, 10_000);
    expect(await state()).toEqual([{ error: true, invocations: 0 }]);
    expect(at("/never")).toHaveLength(0);
  });

  it("counts a failing response transform as a failed attempt, logged with status 500 and tried again", async () => {
    server.route("/answer", () => ({ status: 200, body: { ok: true } }));
    const created = await metadata({
      type: "pg_create_event_trigger",
      args: {
        table: "note",
        name: "note_answer",
        webhook: "{{HANDLER}}/answer",
        insert: { columns: "*" },
        retry_conf: { num_retries: 1, interval_sec: 0 },
        response_transform: { version: 2, body: { action: "transform", template: "{{$body.missing}}" } },
      },
    });
    expect(created.status).toBe(200);
    await graphql(service, { query: 'mutation { insert_note_one(object: {body: "answer"}) { id } }' }, ADMIN_HEADERS);
    const state = async () =>
      (
        await handle.db.query<{ error: boolean; tries: number }>(
          sql`SELECT error, tries FROM hdb_catalog.event_log WHERE trigger_name = 'note_answer'`,
        )
      ).rows;
    await until(async () => (await state())[0]?.error === true, 10_000);
    expect(await state()).toEqual([{ error: true, tries: 2 }]);
    const { rows } = await handle.db.query<{ status: number; response: { type: string; data: { message: string } } }>(
      sql`SELECT status, response FROM hdb_catalog.event_invocation_logs WHERE trigger_name = 'note_answer'`,
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.status).toBe(500);
      expect(row.response.type).toBe("client_error");
      expect(JSON.parse(row.response.data.message)).toMatchObject([{ error_code: "Attribute Error" }]);
    }
    // The webhook was called each time: the answer came, its transform failed.
    expect(at("/answer")).toHaveLength(2);
    // Dropped, so that later inserts into the table do not fire it.
    await metadata({ type: "pg_delete_event_trigger", args: { name: "note_answer" } });
  });

  it("delivers a cron run with its trigger's request transform", async () => {
    server.route("/cron", () => ({ status: 200 }));
    const created = await metadata({
      type: "create_cron_trigger",
      args: {
        name: "yearly_transformed",
        webhook: "{{HANDLER}}/cron",
        schedule: "0 0 1 1 *",
        payload: { job: "sweep" },
        include_in_metadata: true,
        request_transform: {
          version: 2,
          method: "PATCH",
          body: { action: "transform", template: '{"job": {{$body.payload.job}}, "for": {{$body.name}}}' },
        },
      },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    expect((await metadata({ type: "get_inconsistent_metadata", args: {} })).body).toMatchObject({ is_consistent: true });
    await handle.db.query(sql`UPDATE hdb_catalog.hdb_cron_events SET scheduled_time = now() WHERE id = (
      SELECT id FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'yearly_transformed' ORDER BY scheduled_time LIMIT 1)`);
    await until(() => at("/cron").length === 1, 10_000);
    expect(at("/cron")[0]).toMatchObject({ method: "PATCH", body: { job: "sweep", for: "yearly_transformed" } });
  });

  it("delivers a one-off scheduled event with its own transform, and refuses one that does not parse", async () => {
    server.route("/once", () => ({ status: 200 }));
    const event = {
      webhook: "{{HANDLER}}/once",
      schedule_at: new Date().toISOString(),
      payload: { who: "ada" },
      request_transform: { version: 2, method: "PUT", body: { action: "transform", template: '{"greet": {{$body.payload.who}}}' } },
    };
    const refused = await metadata({
      type: "create_scheduled_event",
      args: { ...event, request_transform: { version: 2, body: { action: "transform", template: "{{ $body" } } },
    });
    expect(refused.body).toMatchObject({ code: "validation-failed", error: "request transform validation failed" });
    const created = await metadata({ type: "create_scheduled_event", args: event });
    expect(created.status).toBe(200);
    await until(() => at("/once").length === 1, 10_000);
    expect(at("/once")[0]).toMatchObject({ method: "PUT", body: { greet: "ada" } });
  });

  it("answers test_webhook_transform with the request a transform makes, reading {{VAR}} from the sample env only", async () => {
    const answer = await metadata({
      type: "test_webhook_transform",
      args: {
        webhook_url: "{{BASE}}/users",
        env: { BASE: "http://api.test" },
        body: { input: { id: 3, name: "Ada" } },
        session_variables: { "x-hasura-role": "user" },
        request_headers: [["X-Trace", "t1"]],
        request_transform: {
          version: 2,
          method: "POST",
          url: "{{$base_url}}/{{$body.input.id}}",
          request_headers: { add_headers: { "X-Role": '{{getSessionVariable("x-hasura-role")}}' }, remove_headers: [] },
          body: { action: "transform", template: '{"name": {{$body.input.name}}}' },
        },
      },
    });
    expect(answer).toEqual({
      status: 200,
      body: {
        webhook_url: "http://api.test/users/3",
        method: "POST",
        headers: [
          ["x-trace", "t1"],
          ["x-role", "user"],
        ],
        body: { name: "Ada" },
      },
    });
    const missing = await metadata({
      type: "test_webhook_transform",
      args: { webhook_url: "{{HANDLER}}", body: {}, request_transform: { version: 2 } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "not-found", error: expect.stringMatching(/^Missing Env Var: HANDLER\./) });
    const failing = await metadata({
      type: "test_webhook_transform",
      args: { webhook_url: "http://api.test", body: {}, request_transform: { version: 2, url: "{{$body.nope}}" } },
    });
    expect(failing.body).toMatchObject({ code: "validation-failed", error: "request transform validation failed" });
  });
});
