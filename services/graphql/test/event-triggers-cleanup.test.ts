/**
 * Cleanup of processed events: `pg_trigger_event_trigger_cleanup` deletes a trigger's delivered
 * and failed events older than `clear_older_than` hours (pending and recent ones stay), batch by
 * batch, with their invocation logs when asked; a trigger's `cleanup_config` schedules runs in
 * `hdb_catalog.hdb_event_log_cleanups` and an instance runs those due, recording what it deleted;
 * `pause_event_trigger_cleanups` / `resume_event_trigger_cleanups` set the config's `paused`.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { admin, openService, type Service } from "./support/limits.js";

describe.each(testBackends)("event log cleanup on %s", (backend) => {
  let handle: TestDatabase;
  let receiver: HandlerServer;
  let service: Service;
  const env = () => ({ HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200", EVENT_RECEIVER: receiver.url });

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    receiver = await startHandlerServer();
    receiver.route("/ok", () => ({ status: 200 }));
    service = await openService(handle.db, env());
    await admin(service, "/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE entry (id serial PRIMARY KEY, body text)" } });
    await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table: "entry" } });
    const created = await admin(service, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: {
        name: "entry_log",
        table: "entry",
        webhook: "{{EVENT_RECEIVER}}/ok",
        insert: { columns: "*" },
        cleanup_config: { schedule: "0 0 * * *", clear_older_than: 24, batch_size: 2, clean_invocation_logs: true },
      },
    });
    expect(created.status).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  const count = async (text: string) => Number((await handle.db.query<{ n: number }>({ text, values: [] })).rows[0]?.n);

  /** Five delivered events, three of them backdated two days, and one old pending event. */
  async function fill(): Promise<void> {
    await handle.db.query(sql`DELETE FROM hdb_catalog.event_log`);
    await handle.db.query(sql`INSERT INTO entry (body) SELECT 'e' FROM generate_series(1, 5)`);
    await until(async () => (await count("SELECT count(*) AS n FROM hdb_catalog.event_log WHERE delivered")) === 5, 10_000);
    await handle.db.query(sql`
      UPDATE hdb_catalog.event_log SET created_at = created_at - interval '48 hours'
      WHERE id IN (SELECT id FROM hdb_catalog.event_log ORDER BY id LIMIT 3)`);
    await handle.db.query(sql`
      INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload, created_at)
      VALUES ('public', 'entry', 'other_trigger', '{}', now() - interval '48 hours')`);
  }

  it("deletes only the trigger's processed events older than clear_older_than, with their invocation logs", async () => {
    await fill();
    const invocationsBefore = await count("SELECT count(*) AS n FROM hdb_catalog.event_invocation_logs");
    const answer = await admin(service, "/v1/metadata", {
      type: "pg_trigger_event_trigger_cleanup",
      args: { event_trigger_name: "entry_log", clear_older_than: 24, batch_size: 2, clean_invocation_logs: true },
    });
    expect(answer).toEqual({ status: 200, body: { message: "success", deleted_event_logs: 3, deleted_event_invocation_logs: 3 } });
    expect(await count("SELECT count(*) AS n FROM hdb_catalog.event_log WHERE trigger_name = 'entry_log'")).toBe(2);
    expect(await count("SELECT count(*) AS n FROM hdb_catalog.event_log WHERE trigger_name = 'other_trigger'")).toBe(1);
    expect(await count("SELECT count(*) AS n FROM hdb_catalog.event_invocation_logs")).toBe(invocationsBefore - 3);
    const unknown = await admin(service, "/v1/metadata", {
      type: "pg_trigger_event_trigger_cleanup",
      args: { event_trigger_name: "nope", clear_older_than: 24 },
    });
    expect(unknown).toMatchObject({ status: 400, body: { code: "not-exists" } });
  });

  it("schedules runs from cleanup_config and runs those due on one instance", async () => {
    const scheduled = await handle.db.query<{ status: string; due: boolean }>(
      sql`SELECT status, scheduled_at > now() AT TIME ZONE 'UTC' AS due FROM hdb_catalog.hdb_event_log_cleanups WHERE trigger_name = 'entry_log'`,
    );
    // The next midnight (UTC) is scheduled.
    expect(scheduled.rows).toEqual([{ status: "scheduled", due: true }]);
    await fill();
    // A run that fell due: the next start of an instance (or its minutely look) runs it.
    await handle.db.query(sql`UPDATE hdb_catalog.hdb_event_log_cleanups SET scheduled_at = scheduled_at - interval '2 days'`);
    await service.close();
    service = await openService(handle.db, env());
    await until(async () => (await count("SELECT count(*) AS n FROM hdb_catalog.event_log WHERE trigger_name = 'entry_log'")) === 2);
    // The run's counts are recorded once its last batch is done.
    await until(
      async () => (await count("SELECT count(*) AS n FROM hdb_catalog.hdb_event_log_cleanups WHERE deleted_event_logs IS NOT NULL")) === 1,
    );
    const runs = await handle.db.query<{ status: string; deleted_event_logs: number | null }>(
      sql`SELECT status, deleted_event_logs FROM hdb_catalog.hdb_event_log_cleanups WHERE trigger_name = 'entry_log' ORDER BY scheduled_at`,
    );
    expect(runs.rows).toEqual([
      { status: "completed", deleted_event_logs: 3 },
      { status: "scheduled", deleted_event_logs: null },
    ]);
  });

  it("pauses and resumes cleanups by trigger name or for every trigger, refusing triggers without a config", async () => {
    const paused = async () => {
      const exported = (await admin(service, "/v1/metadata", { type: "export_metadata", args: {} })).body as {
        sources: Array<{ tables: Array<{ event_triggers?: Array<{ name: string; cleanup_config?: { paused?: boolean } }> }> }>;
      };
      const trigger = exported.sources[0]?.tables.flatMap((t) => t.event_triggers ?? []).find((t) => t.name === "entry_log");
      return trigger?.cleanup_config?.paused;
    };
    const call = (type: string, event_triggers: unknown) => admin(service, "/v1/metadata", { type, args: { event_triggers } });
    expect(await call("pause_event_trigger_cleanups", [{ source_name: "default", event_triggers: ["entry_log"] }])).toEqual({
      status: 200,
      body: { message: "success" },
    });
    expect(await paused()).toBe(true);
    expect((await call("resume_event_trigger_cleanups", "*")).status).toBe(200);
    expect(await paused()).toBe(false);
    const missing = await call("pause_event_trigger_cleanups", [{ source_name: "default", event_triggers: ["nope"] }]);
    expect(missing).toMatchObject({ status: 400, body: { code: "not-exists" } });
    expect(await paused()).toBe(false);
    // cleanup_event_trigger_logs is the current name of pg_trigger_event_trigger_cleanup.
    const manual = await admin(service, "/v1/metadata", {
      type: "cleanup_event_trigger_logs",
      args: { event_trigger_name: "entry_log", clear_older_than: 24 },
    });
    expect(manual.status).toBe(200);
    expect(manual.body).toMatchObject({ message: "success" });
  });
});
