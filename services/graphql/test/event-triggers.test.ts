/**
 * Event triggers end to end: created through the metadata API, rows written through GraphQL
 * mutations and run_sql, payloads delivered by the engine to a real local HTTP receiver. Hasura's
 * payload shape, column-filtered updates, payload columns, session variables, a rolled-back write
 * giving no event, retries after interval_sec or Retry-After, timeouts, headers from values and
 * the environment, invocation logs, and deletion archiving pending events.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, type Received, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

/** What a webhook receives (Hasura's event payload). */
interface Delivered {
  id: string;
  created_at: string;
  event: { op: string; data: { old: unknown; new: unknown }; session_variables: unknown };
  delivery_info: { max_retries: number; current_retry: number };
}

const payload = (received: Received) => received.body as unknown as Delivered;

describe.each(testBackends)("event triggers on %s", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let receiver: HandlerServer;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    receiver = await startHandlerServer();
    service = await openService(handle.db, {
      HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200",
      EVENT_RECEIVER: receiver.url,
      RECEIVER_TOKEN: "from-the-environment",
    });
    const setup = await admin(service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, price int, note text, data json)" },
    });
    expect(setup.status).toBe(200);
    expect((await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table: "item" } })).status).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  const createTrigger = (args: Record<string, unknown>) =>
    admin(service, "/v1/metadata", { type: "pg_create_event_trigger", args: { table: "item", source: "default", ...args } });
  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const runSql = (text: string) => admin(service, "/v2/query", { type: "run_sql", args: { sql: text } });

  it("delivers Hasura's payload for inserts, updates and deletes, with the writer's session variables", async () => {
    receiver.route("/all", () => ({ status: 200, body: { ok: true } }));
    const created = await createTrigger({
      name: "item_all",
      webhook: "{{EVENT_RECEIVER}}/all",
      insert: { columns: "*" },
      update: { columns: "*" },
      delete: { columns: "*" },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    const inserted = await graphql(
      service,
      { query: 'mutation { insert_item_one(object: {name: "lamp", price: 10}) { id } }' },
      { ...ADMIN_HEADERS, "x-hasura-role": "admin", "x-hasura-user-id": "7" },
    );
    const id = (inserted.body as { data: { insert_item_one: { id: number } } }).data.insert_item_one.id;
    await runSql(`UPDATE item SET price = 12 WHERE id = ${id}`);
    await runSql(`DELETE FROM item WHERE id = ${id}`);
    await until(() => at("/all").length === 3, 10_000);
    // Delivered concurrently: no order is promised (nor by Hasura).
    const byOp = (op: string) => at("/all").find((r) => payload(r).event.op === op)?.body as unknown as Delivered;
    const [insert, update, remove] = [byOp("INSERT"), byOp("UPDATE"), byOp("DELETE")];
    expect(insert).toMatchObject({
      trigger: { name: "item_all" },
      table: { schema: "public", name: "item" },
      event: {
        op: "INSERT",
        data: { old: null, new: { id, name: "lamp", price: 10, note: null, data: null } },
        session_variables: { "x-hasura-role": "admin", "x-hasura-user-id": "7" },
      },
      delivery_info: { max_retries: 0, current_retry: 0 },
    });
    expect(insert?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(insert?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$/);
    expect(update?.event).toMatchObject({ op: "UPDATE", data: { old: { price: 10 }, new: { price: 12 } }, session_variables: null });
    expect(remove?.event).toMatchObject({ op: "DELETE", data: { old: { id, price: 12 }, new: null } });
    // The receiver answers before the engine records the delivery.
    const logs = () =>
      handle.db.query<{ delivered: boolean; tries: number; locked: unknown }>(
        sql`SELECT delivered, tries, locked FROM hdb_catalog.event_log WHERE trigger_name = 'item_all'`,
      );
    await until(async () => (await logs()).rows.every((r) => r.delivered));
    expect((await logs()).rows).toEqual(Array(3).fill({ delivered: true, tries: 1, locked: null }));
    const invocations = await handle.db.query<{ status: number }>(
      sql`SELECT status FROM hdb_catalog.event_invocation_logs WHERE trigger_name = 'item_all'`,
    );
    expect(invocations.rows).toEqual(Array(3).fill({ status: 200 }));
    expect((await admin(service, "/v1/metadata", { type: "pg_delete_event_trigger", args: { name: "item_all" } })).status).toBe(200);
  });

  it("fires an update only when a listed column changed, and sends only the payload columns", async () => {
    receiver.route("/price", () => ({ status: 200 }));
    await createTrigger({
      name: "item_price",
      webhook: "{{EVENT_RECEIVER}}/price",
      update: { columns: ["price", "data"], payload: ["id", "price"] },
    });
    await runSql("INSERT INTO item (name, price, data) VALUES ('chair', 5, '{\"a\":1}')");
    await runSql("UPDATE item SET note = 'unchanged price' WHERE name = 'chair'");
    await runSql("UPDATE item SET price = NULL WHERE name = 'chair'");
    await runSql("UPDATE item SET data = '{\"a\":2}' WHERE name = 'chair'");
    await until(() => at("/price").length === 2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = at("/price").map((r) => payload(r).event.data);
    expect(events).toHaveLength(2);
    expect(events).toEqual(
      expect.arrayContaining([
        { old: { id: expect.any(Number), price: 5 }, new: { id: expect.any(Number), price: null } },
        { old: { id: expect.any(Number), price: null }, new: { id: expect.any(Number), price: null } },
      ]),
    );
  });

  it("records no event for a rolled-back write", async () => {
    receiver.route("/rollback", () => ({ status: 200 }));
    await createTrigger({ name: "item_rollback", webhook: "{{EVENT_RECEIVER}}/rollback", insert: { columns: "*" } });
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.query(sql`INSERT INTO item (name) VALUES ('never')`);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    const { rows } = await handle.db.query(sql`SELECT 1 FROM hdb_catalog.event_log WHERE trigger_name = 'item_rollback'`);
    expect(rows).toHaveLength(0);
  });

  it("retries after interval_sec, or the answer's Retry-After, and gives up after num_retries", async () => {
    let calls = 0;
    receiver.route("/flaky", () => {
      calls += 1;
      return calls === 1 ? { status: 503, headers: { "Retry-After": "1" } } : calls === 2 ? { status: 500 } : { status: 200 };
    });
    await createTrigger({
      name: "item_flaky",
      webhook: "{{EVENT_RECEIVER}}/flaky",
      insert: { columns: "*" },
      retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 5 },
      headers: [
        { name: "X-Static", value: "fixed" },
        { name: "X-Token", value_from_env: "RECEIVER_TOKEN" },
      ],
    });
    const started = Date.now();
    await runSql("INSERT INTO item (name) VALUES ('flaky')");
    await until(() => at("/flaky").length === 3, 15_000);
    const attempts = at("/flaky");
    expect(attempts.map((r) => payload(r).delivery_info)).toEqual([
      { max_retries: 2, current_retry: 0 },
      { max_retries: 2, current_retry: 1 },
      { max_retries: 2, current_retry: 2 },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(attempts[0]?.headers).toMatchObject({
      "x-static": "fixed",
      "x-token": "from-the-environment",
      "content-type": "application/json",
    });
    await until(async () => {
      const { rows } = await handle.db.query<{ delivered: boolean; tries: number }>(
        sql`SELECT delivered, tries FROM hdb_catalog.event_log WHERE trigger_name = 'item_flaky'`,
      );
      return rows[0]?.delivered === true && rows[0].tries === 3;
    });
    const { rows } = await handle.db.query<{ status: number; response: { type: string } }>(
      sql`SELECT status, response FROM hdb_catalog.event_invocation_logs WHERE trigger_name = 'item_flaky' ORDER BY created_at`,
    );
    expect(rows.map((r) => r.status)).toEqual([503, 500, 200]);
    expect(rows[0]?.response.type).toBe("webhook_response");

    receiver.route("/down", () => ({ status: 500 }));
    await createTrigger({
      name: "item_down",
      webhook: "{{EVENT_RECEIVER}}/down",
      insert: { columns: "*" },
      retry_conf: { num_retries: 1, interval_sec: 0, timeout_sec: 5 },
    });
    await runSql("INSERT INTO item (name) VALUES ('down')");
    await until(async () => {
      const result = await handle.db.query<{ error: boolean }>(
        sql`SELECT error FROM hdb_catalog.event_log WHERE trigger_name = 'item_down'`,
      );
      return result.rows[0]?.error === true;
    }, 10_000);
    expect(at("/down")).toHaveLength(2);
  });

  it("records a timed-out attempt as a client error", async () => {
    receiver.route("/slow", () => ({ status: 200, delayMs: 3000 }));
    await createTrigger({
      name: "item_slow",
      webhook: "{{EVENT_RECEIVER}}/slow",
      insert: { columns: "*" },
      retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 1 },
    });
    await runSql("INSERT INTO item (name) VALUES ('slow')");
    await until(async () => {
      const { rows } = await handle.db.query<{ error: boolean }>(
        sql`SELECT error FROM hdb_catalog.event_log WHERE trigger_name = 'item_slow'`,
      );
      return rows[0]?.error === true;
    }, 10_000);
    const { rows } = await handle.db.query<{ status: number; response: { type: string; data: { message: string } } }>(
      sql`SELECT status, response FROM hdb_catalog.event_invocation_logs WHERE trigger_name = 'item_slow'`,
    );
    expect(rows).toEqual([{ status: 1000, response: { type: "client_error", data: { message: "Response timeout" }, version: "2" } }]);
  });

  it("invokes a manual trigger, redelivers an event and lists events and invocations", async () => {
    let answer = 500;
    receiver.route("/manual", () => ({ status: answer }));
    await createTrigger({ name: "item_manual", webhook: "{{EVENT_RECEIVER}}/manual", enable_manual: true });
    await createTrigger({ name: "item_automatic", webhook: "{{EVENT_RECEIVER}}/manual", insert: { columns: "*" } });
    const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
    const invoked = await metadata({ type: "pg_invoke_event_trigger", args: { name: "item_manual", payload: { note: "by hand" } } });
    expect(invoked.status).toBe(200);
    const eventId = (invoked.body as { event_id: string }).event_id;
    await until(() => at("/manual").length === 1, 10_000);
    expect(payload(at("/manual")[0] as Received).event).toMatchObject({
      op: "MANUAL",
      data: { old: null, new: { note: "by hand" } },
      session_variables: { "x-hasura-role": "admin" },
    });
    expect(await metadata({ type: "pg_invoke_event_trigger", args: { name: "item_automatic", payload: {} } })).toEqual({
      status: 400,
      body: { path: "$.args", error: "manual mode is not enabled for event trigger", code: "not-supported" },
    });
    expect(await metadata({ type: "pg_invoke_event_trigger", args: { name: "nope", payload: {} } })).toMatchObject({
      status: 400,
      body: { code: "not-exists" },
    });
    const failed = async () =>
      ((await metadata({ type: "pg_get_event_by_id", args: { event_id: eventId } })).body as { event: { error: boolean } }).event.error;
    await until(failed);
    answer = 200;
    expect(await metadata({ type: "pg_redeliver_event", args: { event_id: eventId } })).toEqual({
      status: 200,
      body: { message: "success" },
    });
    await until(() => at("/manual").length === 2, 10_000);
    const byId = (await metadata({ type: "pg_get_event_by_id", args: { event_id: eventId } })).body as {
      event: Record<string, unknown>;
      invocations: Array<{ http_status: number }>;
    };
    await until(async () => {
      const again = (await metadata({ type: "pg_get_event_by_id", args: { event_id: eventId } })).body as { event: { delivered: boolean } };
      return again.event.delivered;
    });
    expect(byId.event).toMatchObject({ id: eventId, trigger_name: "item_manual" });
    const invocations = (await metadata({ type: "pg_get_event_invocation_logs", args: { name: "item_manual" } })).body as Array<{
      http_status: number;
    }>;
    expect(invocations.map((i) => i.http_status).sort()).toEqual([200, 500]);
    const pending = await metadata({ type: "pg_get_event_logs", args: { name: "item_manual", status: "pending" } });
    expect(pending).toEqual({ status: 200, body: [] });
    expect(await metadata({ type: "pg_redeliver_event", args: { event_id: "no-such-event" } })).toMatchObject({
      status: 400,
      body: { code: "not-exists", error: "event not found" },
    });
  });

  it("drops the capture and archives pending events when a trigger is deleted", async () => {
    receiver.route("/gone", () => ({ status: 500 }));
    await createTrigger({
      name: "item_gone",
      webhook: "{{EVENT_RECEIVER}}/gone",
      insert: { columns: "*" },
      retry_conf: { num_retries: 5, interval_sec: 60, timeout_sec: 5 },
    });
    await runSql("INSERT INTO item (name) VALUES ('gone')");
    await until(() => at("/gone").length === 1, 10_000);
    expect((await admin(service, "/v1/metadata", { type: "pg_delete_event_trigger", args: { name: "item_gone" } })).status).toBe(200);
    const { rows } = await handle.db.query<{ archived: boolean }>(
      sql`SELECT archived FROM hdb_catalog.event_log WHERE trigger_name = 'item_gone'`,
    );
    expect(rows).toEqual([{ archived: true }]);
    const functions = await handle.db.query(sql`SELECT 1 FROM pg_proc WHERE proname LIKE 'notify_hasura_item_gone_%'`);
    expect(functions.rows).toHaveLength(0);
    await runSql("INSERT INTO item (name) VALUES ('after')");
    const after = await handle.db.query(sql`SELECT 1 FROM hdb_catalog.event_log WHERE trigger_name = 'item_gone'`);
    expect(after.rows).toHaveLength(1);
  });
});
