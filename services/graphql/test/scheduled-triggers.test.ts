/**
 * Cron triggers and one-off scheduled events end to end: created through the metadata API, runs
 * materialised in hdb_catalog.hdb_cron_events (the next 100, as croner computes them in UTC),
 * delivered by the engine to a real local HTTP receiver with Hasura's payload and headers,
 * retried after retry_interval_seconds or Retry-After, marked error when retries are spent and
 * dead past their tolerance; the listing, invocation and deletion commands; export_metadata
 * leaving out the triggers not included in metadata, and replace_metadata keeping them.
 */
import { sql } from "@platform/core";
import { Cron } from "croner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { admin, openService, type Service } from "./support/limits.js";

type Body = Record<string, unknown>;

describe.each(testBackends)("scheduled triggers on %s", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let receiver: HandlerServer;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    receiver = await startHandlerServer();
    service = await openService(handle.db, {
      HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200",
      RECEIVER: receiver.url,
      CRON_SECRET: "s3cret",
    });
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  const metadata = (type: string, args: unknown) => admin(service, "/v1/metadata", { type, args });
  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const cronTimes = async (name: string) =>
    (
      await handle.db.query<{ t: string }>(
        sql`SELECT to_char(scheduled_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS t FROM hdb_catalog.hdb_cron_events
          WHERE trigger_name = ${name} AND status = 'scheduled' ORDER BY scheduled_time`,
      )
    ).rows.map((r) => r.t);
  const expected = (schedule: string, from = new Date()) =>
    new Cron(schedule, { timezone: "UTC", paused: true }).nextRuns(100, from).map((d) => d.toISOString().replace(".000Z", "Z"));
  /** Makes the trigger's first waiting run due now. */
  const runFirstNow = (name: string) =>
    handle.db.query(sql`UPDATE hdb_catalog.hdb_cron_events SET scheduled_time = now() WHERE id = (
      SELECT id FROM hdb_catalog.hdb_cron_events WHERE trigger_name = ${name} AND status = 'scheduled' ORDER BY scheduled_time LIMIT 1)`);
  const oneOffStatus = async (id: string) =>
    (
      await handle.db.query<{ status: string; tries: number }>(
        sql`SELECT status, tries FROM hdb_catalog.hdb_scheduled_events WHERE id = ${id}`,
      )
    ).rows[0];

  it("materialises a cron trigger's next 100 runs in UTC, and rebuilds them when the schedule changes", async () => {
    const created = await metadata("create_cron_trigger", {
      name: "hourly",
      webhook: "{{RECEIVER}}/hourly",
      schedule: "17 * * * *",
      payload: { job: "hourly" },
      include_in_metadata: true,
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    const times = await cronTimes("hourly");
    expect(times).toHaveLength(100);
    expect(times).toEqual(expected("17 * * * *", new Date(Date.parse(times[0] as string) - 3_600_000 + 1)));
    await metadata("create_cron_trigger", {
      name: "hourly",
      webhook: "{{RECEIVER}}/hourly",
      schedule: "0 3 * * *",
      include_in_metadata: true,
      replace: true,
    });
    const daily = await cronTimes("hourly");
    expect(daily).toHaveLength(100);
    expect(daily.every((t) => t.endsWith("T03:00:00Z"))).toBe(true);
    // Runs again after a restart-like rebuild: nothing added twice.
    await metadata("reload_metadata", {});
    expect(await cronTimes("hourly")).toEqual(daily);
    expect(await metadata("delete_cron_trigger", { name: "hourly" })).toEqual({ status: 200, body: { message: "success" } });
    expect(await cronTimes("hourly")).toEqual([]);
  });

  it("delivers a due cron run with the trigger's payload and headers", async () => {
    receiver.route("/nightly", () => ({ status: 200, body: { ok: true } }));
    await metadata("create_cron_trigger", {
      name: "nightly",
      webhook: "{{RECEIVER}}/nightly",
      schedule: "0 1 * * *",
      payload: { job: "ledger" },
      headers: [
        { name: "x-cron-secret", value_from_env: "CRON_SECRET" },
        { name: "x-plain", value: "p" },
      ],
      comment: "the nightly job",
      include_in_metadata: true,
    });
    await runFirstNow("nightly");
    await until(() => at("/nightly").length === 1, 10_000);
    const [call] = at("/nightly");
    expect(call?.headers["x-cron-secret"]).toBe("s3cret");
    expect(call?.headers["x-plain"]).toBe("p");
    const body = call?.body as Body;
    expect(body).toMatchObject({ name: "nightly", payload: { job: "ledger" }, comment: "the nightly job" });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.scheduled_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(body).not.toHaveProperty("created_at");
    const delivered = async () =>
      (
        await handle.db.query<{ status: string; tries: number }>(
          sql`SELECT status, tries FROM hdb_catalog.hdb_cron_events WHERE id = ${body.id as string}`,
        )
      ).rows[0];
    await until(async () => (await delivered())?.status === "delivered");
    expect(await delivered()).toEqual({ status: "delivered", tries: 1 });
    const invocations = await metadata("get_scheduled_event_invocations", { type: "cron", trigger_name: "nightly", get_rows_count: true });
    expect(invocations.body).toMatchObject({ count: 1, invocations: [{ event_id: body.id, status: 200 }] });
    const events = await metadata("get_scheduled_events", { type: "cron", trigger_name: "nightly", status: ["delivered"] });
    expect(events.body).toMatchObject({ events: [{ id: body.id, trigger_name: "nightly", status: "delivered", tries: 1 }] });
    await metadata("delete_cron_trigger", { name: "nightly" });
  });

  it("delivers one-off events: on time, retried until error, dead past their tolerance", async () => {
    receiver.route("/once", () => ({ status: 200 }));
    receiver.route("/fail", () => ({ status: 500, body: { no: true } }));
    const now = new Date().toISOString();
    const bulk = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        {
          type: "create_scheduled_event",
          args: {
            webhook: "{{RECEIVER}}/once",
            schedule_at: now,
            payload: { foo: "baz" },
            headers: [{ name: "header-key", value: "header-value" }],
            comment: "test scheduled event",
          },
        },
        { type: "create_scheduled_event", args: { webhook: "{{RECEIVER}}/once", schedule_at: "2020-01-01T00:00:00Z" } },
        {
          type: "create_scheduled_event",
          args: {
            webhook: "{{RECEIVER}}/fail",
            schedule_at: now,
            retry_conf: { num_retries: 1, retry_interval_seconds: 1, timeout_seconds: 1, tolerance_seconds: 21600 },
          },
        },
      ],
    });
    expect(bulk.status).toBe(200);
    const ids = (bulk.body as Array<{ message: string; event_id: string }>).map((r) => r.event_id);
    expect(ids.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    const [onTime, late, failing] = ids as [string, string, string];
    await until(async () => (await oneOffStatus(failing))?.status === "error", 15_000);
    await until(async () => (await oneOffStatus(onTime))?.status === "delivered", 5_000);
    expect(await oneOffStatus(onTime)).toEqual({ status: "delivered", tries: 1 });
    expect(await oneOffStatus(late)).toEqual({ status: "dead", tries: 0 });
    expect(await oneOffStatus(failing)).toEqual({ status: "error", tries: 2 });
    expect(at("/fail")).toHaveLength(2);
    const [call] = at("/once");
    expect(at("/once")).toHaveLength(1);
    expect(call?.headers["header-key"]).toBe("header-value");
    const created = await handle.db.query<{ created_at: string }>(
      sql`SELECT to_json(timezone('utc', created_at)) #>> '{}' AS created_at FROM hdb_catalog.hdb_scheduled_events WHERE id = ${onTime}`,
    );
    expect(call?.body).toEqual({
      id: onTime,
      scheduled_time: expect.stringMatching(/Z$/),
      payload: { foo: "baz" },
      comment: "test scheduled event",
      created_at: `${created.rows[0]?.created_at}Z`,
    });
    const listed = await metadata("get_scheduled_events", { type: "one_off", status: ["dead", "error"], get_rows_count: true });
    expect(listed.body).toMatchObject({ count: 2 });
    const invocations = await metadata("get_scheduled_event_invocations", { type: "one_off", event_id: failing });
    expect((invocations.body as { invocations: Array<{ status: number }> }).invocations.map((i) => i.status)).toEqual([500, 500]);
    expect(await metadata("delete_scheduled_event", { type: "one_off", event_id: late })).toEqual({
      status: 200,
      body: { message: "success" },
    });
    expect((await metadata("delete_scheduled_event", { type: "one_off", event_id: late })).body).toMatchObject({ code: "not-exists" });
  });

  it("waits the answer's Retry-After before trying again", async () => {
    let calls = 0;
    receiver.route("/later", () => (++calls === 1 ? { status: 503, headers: { "Retry-After": "2" } } : { status: 200 }));
    const created = await metadata("create_scheduled_event", { webhook: "{{RECEIVER}}/later", schedule_at: new Date().toISOString() });
    const id = (created.body as { event_id: string }).event_id;
    await until(async () => (await oneOffStatus(id))?.status === "delivered", 10_000);
    const times = await handle.db.query<{ gap: number }>(
      sql`SELECT extract(epoch from max(created_at) - min(created_at))::float8 AS gap FROM hdb_catalog.hdb_scheduled_event_invocation_logs WHERE event_id = ${id}`,
    );
    expect(Number(times.rows[0]?.gap)).toBeGreaterThanOrEqual(1.9);
    expect(await oneOffStatus(id)).toEqual({ status: "delivered", tries: 2 });
  });

  it("lists every cron trigger with defaults, exports only those included, and keeps the others on replace", async () => {
    const base = { webhook: "{{RECEIVER}}/none", schedule: "0 0 1 1 *", headers: [{ name: "h", value: "v" }] };
    await metadata("create_cron_trigger", { ...base, name: "kept", include_in_metadata: true });
    await metadata("create_cron_trigger", { ...base, name: "hidden", include_in_metadata: false, payload: { a: 1 } });
    const listed = await metadata("get_cron_triggers", {});
    expect(listed.body).toEqual({
      cron_triggers: [
        {
          name: "kept",
          ...base,
          include_in_metadata: true,
          retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 },
        },
        {
          name: "hidden",
          ...base,
          include_in_metadata: false,
          payload: { a: 1 },
          retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 },
        },
      ],
    });
    const exported = (await metadata("export_metadata", {})).body as { cron_triggers: Array<{ name: string }> };
    expect(exported.cron_triggers.map((t) => t.name)).toEqual(["kept"]);
    expect((await metadata("replace_metadata", exported)).status).toBe(200);
    const after = (await metadata("get_cron_triggers", {})).body as { cron_triggers: Array<{ name: string }> };
    expect(after.cron_triggers.map((t) => t.name).sort()).toEqual(["hidden", "kept"]);
    expect(await cronTimes("hidden")).toHaveLength(100);
    const duplicate = await metadata("create_cron_trigger", { ...base, name: "hidden", include_in_metadata: false });
    expect(duplicate).toEqual({
      status: 400,
      body: { code: "already-exists", error: "cron trigger with name: hidden already exists", path: "$.args" },
    });
    await metadata("delete_cron_trigger", { name: "kept" });
    await metadata("delete_cron_trigger", { name: "hidden" });
  });

  it("refuses bad arguments in Hasura's error shape, leaving nothing behind", async () => {
    const badCron = await metadata("create_cron_trigger", {
      name: "bad",
      webhook: "http://x",
      schedule: "every day",
      include_in_metadata: true,
    });
    expect(badCron.status).toBe(400);
    expect(badCron.body).toMatchObject({ code: "parse-failed", path: "$.args.schedule" });
    const seconds = await metadata("create_cron_trigger", {
      name: "bad",
      webhook: "http://x",
      schedule: "* * * * * *",
      include_in_metadata: true,
    });
    expect(seconds.body).toMatchObject({ code: "parse-failed" });
    const noTime = await metadata("create_scheduled_event", { webhook: "http://x" });
    expect(noTime).toEqual({ status: 400, body: { code: "parse-failed", error: 'key "schedule_at" not found', path: "$.args" } });
    const badTime = await metadata("create_scheduled_event", { webhook: "http://x", schedule_at: "tomorrow" });
    expect(badTime.body).toMatchObject({ code: "parse-failed", path: "$.args.schedule_at" });
    // Dates PostgreSQL would refuse are refused first, in the same shape.
    for (const scheduleAt of ["2021-02-29T00:00:00Z", "2020-04-31T10:00:00Z", "2020-01-01T25:00:00Z", "2020-01-01T10:00:00+20:00"]) {
      const refused = await metadata("create_scheduled_event", { webhook: "http://x", schedule_at: scheduleAt });
      expect(refused).toMatchObject({ status: 400, body: { code: "parse-failed", path: "$.args.schedule_at" } });
    }
    const badType = await metadata("get_scheduled_events", { type: "weekly" });
    expect(badType.body).toMatchObject({ code: "parse-failed", path: "$.args.type" });
    const badRetry = await metadata("create_cron_trigger", {
      name: "bad",
      webhook: "http://x",
      schedule: "* * * * *",
      include_in_metadata: true,
      retry_conf: { num_retries: "two" },
    });
    expect(badRetry.body).toMatchObject({ code: "parse-failed", path: "$.args.retry_conf.num_retries" });
    expect(((await metadata("get_cron_triggers", {})).body as { cron_triggers: unknown[] }).cron_triggers).toEqual([]);
    const { rows } = await handle.db.query(sql`SELECT 1 FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'bad'`);
    expect(rows).toEqual([]);
  });
});
