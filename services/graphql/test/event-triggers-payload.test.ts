/**
 * What an event's row data and session carry, as Hasura sends them: big numbers (bigint, numeric,
 * double precision) as strings, rows written through a partition named by the partitioned table,
 * the session variables of a legacy /v1/query write (the admin's, with the request's x-hasura-*
 * headers); and the trigger as a dependent of the columns it names: run_sql dropping one is
 * refused (dependency-error) unless cascaded, which drops the trigger, while dropping a column it
 * does not name leaves the capture working; clear_metadata drops the event catalog, as Hasura
 * drops a source's, and the next trigger makes it again.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { ADMIN_HEADERS, admin, openService, type Service } from "./support/limits.js";

interface Delivered {
  table: { schema: string; name: string };
  event: { op: string; data: { old: Record<string, unknown> | null; new: Record<string, unknown> | null }; session_variables: unknown };
}

describe.each(testBackends)("event payloads on %s", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let receiver: HandlerServer;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    receiver = await startHandlerServer();
    receiver.route("/hook", () => ({ status: 200 }));
    service = await openService(handle.db, { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200", EVENT_RECEIVER: receiver.url });
    const ddl = `CREATE TABLE big (id bigint PRIMARY KEY, amount numeric, ratio double precision, n int, label text, extra text);
      CREATE TABLE measurement (id int, logdate date NOT NULL, reading int) PARTITION BY RANGE (logdate);
      CREATE TABLE measurement_y2006 PARTITION OF measurement FOR VALUES FROM ('2006-01-01') TO ('2007-01-01');`;
    expect((await admin(service, "/v2/query", { type: "run_sql", args: { sql: ddl } })).status).toBe(200);
    for (const table of ["big", "measurement"])
      expect((await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table } })).status).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  const trigger = (name: string, table: string, extra: Record<string, unknown> = {}) =>
    admin(service, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: { name, table, webhook: "{{EVENT_RECEIVER}}/hook", insert: { columns: "*" }, ...extra },
    });
  const deliveredFor = async (name: string, count: number) => {
    const mine = () => receiver.received.filter((r) => (r.body.trigger as { name: string }).name === name);
    await until(() => mine().length === count, 10_000);
    return mine().map((r) => r.body as unknown as Delivered);
  };

  it("sends bigint, numeric and double precision values as strings, exactly", async () => {
    expect((await trigger("big_all", "big")).status).toBe(200);
    // The request's JSON numbers keep their digits (a double would make the id 50755254975729660).
    const inserted = await service.app.inject({
      method: "POST",
      url: "/v1/query",
      headers: { ...ADMIN_HEADERS, "content-type": "application/json" },
      payload:
        '{"type":"insert","args":{"table":"big","objects":[{"id":50755254975729665,"amount":12345678901234567890.25,"ratio":0.5,"n":7,"label":"x"}]}}',
    });
    expect(inserted.statusCode).toBe(200);
    const [event] = await deliveredFor("big_all", 1);
    expect(event?.event.data.new).toEqual({
      id: "50755254975729665",
      amount: "12345678901234567890.25",
      ratio: "0.5",
      n: 7,
      label: "x",
      extra: null,
    });
  });

  it("names the partitioned table for rows written through a partition", async () => {
    expect((await trigger("measurement_all", "measurement")).status).toBe(200);
    await admin(service, "/v2/query", { type: "run_sql", args: { sql: "INSERT INTO measurement VALUES (1, '2006-02-01', 5)" } });
    const [event] = await deliveredFor("measurement_all", 1);
    expect(event?.table).toEqual({ schema: "public", name: "measurement" });
  });

  it("records the session variables of legacy /v1/query writes", async () => {
    const headers = { ...ADMIN_HEADERS, "x-hasura-role": "admin", "x-hasura-user-id": "1", "x-random-header": "not a session variable" };
    const response = await service.app.inject({
      method: "POST",
      url: "/v1/query",
      headers,
      payload: { type: "update", args: { table: "big", where: { id: "50755254975729665" }, $set: { label: "y" } } },
    });
    expect(response.json()).toEqual({ affected_rows: 1 });
    await admin(service, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: { name: "big_update", table: "big", webhook: "{{EVENT_RECEIVER}}/hook", update: { columns: ["label"] }, replace: false },
    });
    await service.app.inject({
      method: "POST",
      url: "/v1/query",
      headers,
      payload: { type: "update", args: { table: "big", where: { id: { $eq: "50755254975729665" } }, $set: { label: "z" } } },
    });
    const [event] = await deliveredFor("big_update", 1);
    expect(event?.event.session_variables).toEqual({ "x-hasura-role": "admin", "x-hasura-user-id": "1" });
    expect(event?.event.data).toMatchObject({ old: { label: "y" }, new: { label: "z" } });
  });

  it("refuses to drop a column a trigger names, drops the trigger with cascade, and keeps capturing after other drops", async () => {
    const drop = (column: string, cascade = false) =>
      admin(service, "/v2/query", { type: "run_sql", args: { sql: `ALTER TABLE big DROP COLUMN ${column}`, cascade } });
    const refused = await drop("label");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "dependency-error",
      error: 'cannot drop due to the following dependent objects : event-trigger big.big_update in source "default"',
    });
    // A column no trigger names goes; the capture of `*` follows the table.
    expect((await drop("extra")).status).toBe(200);
    await admin(service, "/v1/query", { type: "insert", args: { table: "big", objects: [{ id: 2, label: "after" }] } });
    const events = await deliveredFor("big_all", 2);
    expect(events[1]?.event.data.new).toEqual({ id: "2", amount: null, ratio: null, n: null, label: "after" });
    expect((await drop("label", true)).status).toBe(200);
    const exported = (await admin(service, "/v1/metadata", { type: "export_metadata", args: {} })).body as {
      sources: Array<{ tables: Array<{ table: { name: string }; event_triggers?: Array<{ name: string }> }> }>;
    };
    const big = exported.sources[0]?.tables.find((t) => t.table.name === "big");
    expect(big?.event_triggers?.map((t) => t.name)).toEqual(["big_all"]);
    const { rows } = await handle.db.query(sql`SELECT 1 FROM pg_trigger WHERE tgname = 'notify_hasura_big_update_UPDATE'`);
    expect(rows).toEqual([]);
  });

  it("drops the event catalog on clear_metadata, and makes it again for the next trigger", async () => {
    const exists = async () =>
      (await handle.db.query<{ present: boolean }>(sql`SELECT to_regclass('hdb_catalog.event_log') IS NOT NULL AS present`)).rows[0]
        ?.present;
    expect(await exists()).toBe(true);
    expect((await admin(service, "/v1/metadata", { type: "clear_metadata", args: {} })).status).toBe(200);
    expect(await exists()).toBe(false);
    const { rows } = await handle.db.query(sql`SELECT 1 FROM pg_proc WHERE proname LIKE 'notify_hasura_%'`);
    expect(rows).toEqual([]);
    const byId = await admin(service, "/v1/metadata", {
      type: "pg_get_event_by_id",
      args: { event_id: "00000000-0000-0000-0000-000000000000" },
    });
    expect(byId).toMatchObject({ status: 400, body: { code: "not-exists", error: "event not found" } });
    // Writes to the table record nothing now.
    await admin(service, "/v2/query", { type: "run_sql", args: { sql: "INSERT INTO big (id) VALUES (3)" } });
    expect((await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table: "big" } })).status).toBe(200);
    expect((await trigger("big_again", "big")).status).toBe(200);
    expect(await exists()).toBe(true);
    await admin(service, "/v2/query", { type: "run_sql", args: { sql: "INSERT INTO big (id) VALUES (4)" } });
    const [event] = await deliveredFor("big_again", 1);
    expect(event?.event.data.new).toMatchObject({ id: "4" });
  });
});
