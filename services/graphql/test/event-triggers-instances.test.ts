/**
 * Event delivery by several engine instances on one PostgreSQL database (PGlite serves one
 * process, so these run only with TEST_DATABASE_URL): each instance has its own pool and its own
 * listening connection. Every event is delivered once while two instances run; a handler slower
 * than the lease's first period is not called twice (the lease is renewed); an instance killed
 * (SIGKILL, a real process) in the middle of a delivery leaves its event to the other, which
 * delivers it once the lease is over. The same for scheduled events: every cron run and one-off
 * event delivered once by the two, a slow one called once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, freePort, openDatabase, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { until } from "./support/inbox.js";
import { admin, openService, SECRET, type Service } from "./support/limits.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const LEASE_SECONDS = "3";

/** An engine as its own process, on the database at `url`. */
async function startProcess(url: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "services/graphql/src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      HASURA_GRAPHQL_DATABASE_URL: url,
      HASURA_GRAPHQL_ADMIN_SECRET: SECRET,
      HASURA_GRAPHQL_SERVER_PORT: String(port),
      HASURA_GRAPHQL_SERVER_HOST: "127.0.0.1",
      HASURA_GRAPHQL_LOG_LEVEL: "silent",
      HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "200",
      ...env,
    },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  await until(async () => {
    try {
      return (await fetch(`${base}/healthz`)).status === 200;
    } catch {
      return false;
    }
  }, 30_000);
  return { child, url: base };
}

const postgres = testBackends.includes("postgres") ? describe : describe.skip;

postgres("event triggers delivered by two instances on PostgreSQL", () => {
  let handle: TestDatabase;
  let receiver: HandlerServer;
  let first: Service;
  let second: Service;
  let secondDb: Awaited<ReturnType<typeof openDatabase>>;
  const env = () => ({
    HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "200",
    HASURA_GRAPHQL_EVENTS_LEASE_SECONDS: LEASE_SECONDS,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "200",
    EVENT_RECEIVER: receiver.url,
  });

  beforeAll(async () => {
    handle = await openTestDatabase("postgres");
    receiver = await startHandlerServer();
    first = await openService(handle.db, env());
    // Its own pool and listening connection: a separate instance in all but the process.
    secondDb = await openDatabase({ url: handle.url as string, maxConnections: 4 });
    second = await createGraphql(readGraphqlConfig({ HASURA_GRAPHQL_ADMIN_SECRET: SECRET, ...env() }), createLogger({ level: "silent" }), {
      db: secondDb,
    });
    await admin(first, "/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE job (id serial PRIMARY KEY, label text)" } });
    await admin(first, "/v1/metadata", { type: "pg_track_table", args: { table: "job" } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await secondDb?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  const delivered = async (trigger: string) => {
    const { rows } = await handle.db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE trigger_name = ${trigger} AND delivered`,
    );
    return rows[0]?.n ?? 0;
  };
  const idsAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => String(r.body.id));

  it("delivers every event once while both instances take events", async () => {
    receiver.route("/burst", () => ({ status: 200, delayMs: 20 }));
    await admin(first, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: { name: "job_burst", table: "job", webhook: "{{EVENT_RECEIVER}}/burst", insert: { columns: "*" } },
    });
    // The second instance picks the trigger up from the stored metadata (polled every 200 ms).
    await new Promise((resolve) => setTimeout(resolve, 600));
    for (let i = 0; i < 10; i++) {
      await handle.db.query(sql`INSERT INTO job (label) SELECT 'burst' FROM generate_series(1, 30)`);
    }
    await until(async () => (await delivered("job_burst")) === 300, 30_000);
    const ids = idsAt("/burst");
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    const { rows } = await handle.db.query<{ tries: number }>(
      sql`SELECT DISTINCT tries FROM hdb_catalog.event_log WHERE trigger_name = 'job_burst'`,
    );
    expect(rows).toEqual([{ tries: 1 }]);
  }, 60_000);

  it("calls a handler slower than the lease's first period once: the lease is renewed", async () => {
    receiver.route("/slow", () => ({ status: 200, delayMs: 5000 }));
    await admin(first, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: {
        name: "job_slow",
        table: "job",
        webhook: "{{EVENT_RECEIVER}}/slow",
        insert: { columns: "*" },
        retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 10 },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await handle.db.query(sql`INSERT INTO job (label) VALUES ('slow')`);
    await until(async () => (await delivered("job_slow")) === 1, 20_000);
    expect(idsAt("/slow")).toHaveLength(1);
  }, 30_000);

  it("delivers every cron run and one-off event once while both instances take them, a slow one once", async () => {
    receiver.route("/tick", () => ({ status: 200, delayMs: 20 }));
    receiver.route("/once", (r) => ({ status: 200, delayMs: (r.body.payload as { slow?: boolean } | null)?.slow ? 5000 : 20 }));
    await admin(first, "/v1/metadata", {
      type: "create_cron_trigger",
      args: { name: "tick", webhook: "{{EVENT_RECEIVER}}/tick", schedule: "0 0 1 1 *", include_in_metadata: true },
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    // 60 of its materialised runs (yearly, so none falls due by itself during the test) are moved to now.
    await handle.db.query(sql`UPDATE hdb_catalog.hdb_cron_events e SET scheduled_time = now() - interval '1 second' - r.n * interval '1 millisecond'
      FROM (SELECT id, row_number() OVER (ORDER BY scheduled_time) AS n FROM hdb_catalog.hdb_cron_events
        WHERE trigger_name = 'tick' ORDER BY scheduled_time DESC LIMIT 60) r
      WHERE e.id = r.id`);
    const now = new Date().toISOString();
    const created = await admin(second, "/v1/metadata", {
      type: "bulk",
      args: [
        ...Array.from({ length: 60 }, (_, i) => ({
          type: "create_scheduled_event",
          args: { webhook: "{{EVENT_RECEIVER}}/once", schedule_at: now, payload: { n: i } },
        })),
        {
          type: "create_scheduled_event",
          args: { webhook: "{{EVENT_RECEIVER}}/once", schedule_at: now, payload: { slow: true }, retry_conf: { timeout_seconds: 10 } },
        },
      ],
    });
    expect(created.status).toBe(200);
    const settled = async (table: string) => {
      const { rows } = await handle.db.query<{ n: number }>({
        text: `SELECT count(*)::int AS n FROM ${table} WHERE status = 'delivered'`,
        values: [],
      });
      return rows[0]?.n ?? 0;
    };
    await until(async () => (await settled("hdb_catalog.hdb_cron_events")) === 60, 30_000);
    await until(async () => (await settled("hdb_catalog.hdb_scheduled_events")) === 61, 30_000);
    const cron = idsAt("/tick");
    expect(new Set(cron).size).toBe(60);
    expect(cron).toHaveLength(60);
    const once = idsAt("/once");
    expect(new Set(once).size).toBe(61);
    expect(once).toHaveLength(61);
    await admin(first, "/v1/metadata", { type: "delete_cron_trigger", args: { name: "tick" } });
  }, 60_000);

  it("delivers the event of an instance killed in the middle of its delivery once its lease is over", async () => {
    let calls = 0;
    receiver.route("/killed", () => {
      calls += 1;
      // The first call never gets its answer: its instance is killed while it waits.
      return calls === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 };
    });
    // Only the doomed process delivers at first: the two instances here stop taking events.
    await Promise.all([first.close(), second.close()]);
    const doomed = await startProcess(handle.url as string, env());
    try {
      // Created through an instance that delivers nothing (fetch interval 0).
      const quiet = await openService(handle.db, { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0" });
      await admin(quiet, "/v1/metadata", {
        type: "pg_create_event_trigger",
        args: { name: "job_killed", table: "job", webhook: "{{EVENT_RECEIVER}}/killed", insert: { columns: "*" } },
      });
      await quiet.close();
      await new Promise((resolve) => setTimeout(resolve, 600));
      await handle.db.query(sql`INSERT INTO job (label) VALUES ('killed')`);
      await until(() => calls === 1, 20_000);
      doomed.child.kill("SIGKILL");
      const killedAt = Date.now();
      first = await openService(handle.db, env());
      await until(async () => (await delivered("job_killed")) === 1, 20_000);
      // Not before the lease ran out (3 s from the last renewal, at most a second before the kill).
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1500);
      expect(calls).toBe(2);
    } finally {
      doomed.child.kill("SIGKILL");
    }
    second = await openService(secondDb, env());
  }, 60_000);
});
