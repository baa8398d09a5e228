/**
 * No GraphQL request ties up the database: on PostgreSQL every statement of a request is
 * cancelled in the server when its time limit passes (HASURA_GRAPHQL_TIME_LIMIT, or the
 * time_limit API limit that lowers it) or when the HTTP client goes away, and pg_stat_activity
 * shows it gone within a second. Underneath, the Database's signal: statements cancelled, the
 * pooled connection kept clean, and a lost cancel or a dead engine still ending the statement.
 * On PGlite, what it can do: nothing once a statement runs (statement_timeout is not enforced),
 * but no statement starts after the abort, and an aborted transaction rolls back.
 */
import { request as httpRequest } from "node:http";
import { type Database, sql } from "@platform/core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_CHECK_INTERVAL_MS } from "../../../packages/core/src/db/pg.js";
import { CANCEL_GRACE_MS } from "../../../packages/core/src/db/pg-cancel.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";
import {
  ActivityProbe,
  ADMIN_HEADERS,
  admin,
  asUser,
  graphql,
  nestedQuery,
  openService,
  type Service,
  setUpSchema,
  waitUntil,
} from "./support/limits.js";

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;
if (!serverUrl) console.warn("limits-timeout: TEST_DATABASE_URL is not set, the PostgreSQL cancellation cases are skipped");

const timedOut = (code: string, limit: string) => ({
  errors: [{ message: `time limit of ${limit} exceeded`, extensions: { path: "$", code } }],
});

/** Runs `work` and returns its result with the milliseconds it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = Date.now();
  const result = await work();
  return { result, ms: Date.now() - start };
}

describe.runIf(serverUrl)("PostgreSQL: requests are cancelled in the server", () => {
  let handle: TestDatabase;
  let probe: ActivityProbe;
  /** HASURA_GRAPHQL_TIME_LIMIT=1. */
  let limited: Service;
  /** The default time limit (60 s), listening on a real socket. */
  let open: Service;
  let url: string;

  beforeAll(async () => {
    handle = await openTestDatabase("postgres");
    probe = await ActivityProbe.open(serverUrl as string, handle.db);
    // These cases are about the time limit: the bounds that refuse the nested attack before it runs
    // (its depth, its estimated cost) are off here; limits-bounds.test.ts has them on.
    limited = await openService(handle.db, {
      HASURA_GRAPHQL_TIME_LIMIT: "1",
      HASURA_GRAPHQL_DEFAULT_DEPTH_LIMIT: "0",
      HASURA_GRAPHQL_COST_LIMIT: "0",
    });
    await setUpSchema(limited);
    open = await openService(handle.db);
    url = await open.app.listen({ host: "127.0.0.1", port: 0 });
  }, 60_000);
  afterAll(async () => {
    await limited?.close();
    await open?.close();
    await probe?.close();
    await handle?.dispose();
  });

  const gone = (fragment: string) => waitUntil(async () => (await probe.running(fragment)) === 0, 1000, `${fragment} still running`);
  /** Runs `work` once the statement it starts, found by `fragment`, shows in pg_stat_activity. */
  const whileRunning = async <T>(fragment: string, work: () => Promise<T>) => {
    const pending = timed(work);
    await waitUntil(async () => (await probe.running(fragment)) === 1, 5000, `${fragment} never started`);
    return pending;
  };

  it("stops a slow query at HASURA_GRAPHQL_TIME_LIMIT with Hasura Cloud's time limit error", async () => {
    const { result, ms } = await whileRunning("sleepy", () => graphql(limited, { query: "{ sleepy { id } }" }));
    expect(result).toEqual({ status: 200, body: timedOut("tenant-time-limit-exceeded", "1s") });
    expect(ms).toBeGreaterThanOrEqual(950);
    expect(ms).toBeLessThan(2000);
    await gone("sleepy");
  });

  it("stops an operation split over several statements at the time limit, in its snapshot's transaction", async () => {
    // 101 root fields: two statements, the slow one first.
    const fields = Array.from({ length: 100 }, (_, i) => `u${i}: users_by_pk(id: ${i + 1}) { id }`);
    const query = `{ slow: sleepy { id } ${fields.join(" ")} }`;
    const { result, ms } = await whileRunning("sleepy", () => graphql(limited, { query }));
    expect(result).toEqual({ status: 200, body: timedOut("tenant-time-limit-exceeded", "1s") });
    expect(ms).toBeLessThan(2000);
    await gone("sleepy");
  });

  it("stops the nested relationship attack (26 levels over 4000 posts) at the time limit", async () => {
    const query = nestedQuery(13);
    expect(query.length).toBeLessThan(600);
    // pg_stat_activity keeps the first 1 kB of a statement: its table names are further in.
    const { result, ms } = await whileRunning("row_to_json", () => graphql(limited, { query }));
    expect(result).toEqual({ status: 200, body: timedOut("tenant-time-limit-exceeded", "1s") });
    expect(ms).toBeLessThan(2500);
    await gone("row_to_json");
  });

  it("cancels a mutation's transaction at the time limit and rolls it back", async () => {
    const mutation = `mutation { insert_audit_one(object: { note: "slow" }) { id } }`;
    const { result, ms } = await whileRunning("audit", () => graphql(limited, { query: mutation }));
    expect(result).toEqual({ status: 200, body: timedOut("tenant-time-limit-exceeded", "1s") });
    expect(ms).toBeLessThan(2000);
    await gone("audit");
    const { rows } = await handle.db.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM audit`);
    expect(rows[0]?.n).toBe(0);
  });

  it("answers the time_limit API limit (global, per role) that lowers the server-wide one, admin exempt", async () => {
    const limit = async (time_limit: unknown) => {
      const set = await admin(limited, "/v1/metadata", { type: "set_api_limits", args: { time_limit } });
      expect(set).toEqual({ status: 200, body: { message: "success" } });
    };
    const slow = async (headers: Record<string, string>, limit: string, code: string) => {
      const { result, ms } = await whileRunning("sleepy", () => graphql(limited, { query: "{ sleepy { id } }" }, headers));
      expect(result.body).toEqual(timedOut(code, limit));
      expect(ms).toBeLessThan(Number.parseFloat(limit) * 1000 + 500);
      await gone("sleepy");
    };
    try {
      await limit({ global: 0.5 });
      await slow(asUser(), "0.5s", "time-limit-exceeded");
      await limit({ global: 30, per_role: { user: 0.7 } });
      await slow(asUser(), "0.7s", "time-limit-exceeded");
      // 30 s is above the server's 1 s: the server's limit stands.
      await limit({ global: 30 });
      await slow(asUser(), "1s", "tenant-time-limit-exceeded");
      await limit({ global: 0.5 });
      await slow(ADMIN_HEADERS, "1s", "tenant-time-limit-exceeded");
    } finally {
      await admin(limited, "/v1/metadata", { type: "remove_api_limits" });
    }
  });

  it("cancels the statement when the HTTP client disconnects, long before the time limit", async () => {
    const body = JSON.stringify({ query: "{ sleepy { id } }" });
    const request = httpRequest(`${url}/v1/graphql`, {
      method: "POST",
      headers: { ...asUser(), "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    request.on("error", () => {});
    request.end(body);
    await waitUntil(async () => (await probe.running("sleepy")) === 1, 5000, "the query never started");
    request.destroy();
    const ms = await gone("sleepy");
    expect(ms).toBeLessThan(1000);
    // The service goes on serving, its connections unharmed.
    const after = await graphql(open, { query: "{ users(limit: 1, order_by: { id: asc }) { id } }" });
    expect(after.body).toEqual({ data: { users: [{ id: 1 }] } });
  });

  it("cancels through the engine's signal: Engine.execute(request, session, { signal })", async () => {
    const controller = new AbortController();
    const reason = new Error("gone");
    const started = open.runtime.execute({ query: "{ sleepy { id } }" }, asRole("user"), { signal: controller.signal });
    await waitUntil(async () => (await probe.running("sleepy")) === 1, 5000, "the query never started");
    controller.abort(reason);
    const { ms } = await timed(() => started);
    expect(ms).toBeLessThan(1000);
    await gone("sleepy");
  });

  it("cancels an operation split over several statements as it cancels one statement", async () => {
    const controller = new AbortController();
    const fields = Array.from({ length: 100 }, (_, i) => `u${i}: users_by_pk(id: ${i + 1}) { id }`);
    const query = `{ slow: sleepy { id } ${fields.join(" ")} }`;
    // As admin: no cost estimate first, so the abort lands in the statements' transaction.
    const started = open.runtime.execute({ query }, ADMIN, { signal: controller.signal });
    await waitUntil(async () => (await probe.running("sleepy")) === 1, 5000, "the query never started");
    controller.abort(new Error("gone"));
    const { result, ms } = await timed(() => started);
    expect(ms).toBeLessThan(1000);
    // A cancellation, not an unexpected failure of the engine.
    expect(JSON.parse(result.body).errors[0].message).toBe("the request was cancelled");
    await gone("sleepy");
  });

  describe("the Database's signal", () => {
    const pool = () => handle.db.driver as pg.Pool;

    it("cancels the running statement in PostgreSQL and rejects with the signal's reason", async () => {
      const controller = new AbortController();
      const running = handle.db.query(sql`SELECT pg_sleep(30)`, { signal: controller.signal });
      await waitUntil(async () => (await probe.running("pg_sleep")) === 1, 5000, "never started");
      const reason = new Error("stop");
      controller.abort(reason);
      const { result, ms } = await timed(() =>
        running.then(
          () => "finished",
          (error: unknown) => error,
        ),
      );
      expect(result).toBe(reason);
      expect(ms).toBeLessThan(CANCEL_GRACE_MS);
      expect(await probe.running("pg_sleep")).toBe(0);
    });

    it("puts the cancelled connection back in the pool, clean", async () => {
      const before = pool().totalCount;
      const controller = new AbortController();
      const running = handle.db.query(sql`SELECT pg_sleep(30)`, { signal: controller.signal }).catch(() => {});
      await waitUntil(async () => (await probe.running("pg_sleep")) === 1, 5000, "never started");
      controller.abort();
      await running;
      expect(pool().totalCount).toBe(before);
      const { rows } = await handle.db.query<{ one: number }>(sql`SELECT 1 AS one`);
      expect(rows).toEqual([{ one: 1 }]);
    });

    it("runs nothing for a signal already aborted", async () => {
      const reason = new Error("too late");
      await expect(handle.db.query(sql`SELECT pg_sleep(30)`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      await expect(handle.db.transaction(async () => "ran", { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      expect(await probe.running("pg_sleep")).toBe(0);
    });

    it("rolls a transaction back when it is aborted between its statements", async () => {
      const controller = new AbortController();
      const outcome = handle.db
        .transaction(
          async (tx) => {
            await tx.query(sql`INSERT INTO users VALUES (5000, 'rolled back')`);
            controller.abort(new Error("aborted"));
            await tx.query(sql`SELECT 1`);
          },
          { signal: controller.signal },
        )
        .catch((error: Error) => error.message);
      expect(await outcome).toBe("aborted");
      const { rows } = await handle.db.query(sql`SELECT id FROM users WHERE id = 5000`);
      expect(rows).toEqual([]);
    });

    it("closes the connection when the cancel request is lost, and the server ends the statement", async () => {
      const client = await pool().connect();
      // A wrong key: PostgreSQL ignores the cancel request, as it would a lost one.
      const key = client as unknown as { secretKey: number };
      const secretKey = key.secretKey;
      client.release();
      key.secretKey = secretKey ^ 1;
      const controller = new AbortController();
      // Every connection of the pool is idle: this statement gets the one just tampered with, or
      // another; either way the cancel is sent for the backend that runs it.
      const running = handle.db.query(sql`SELECT pg_sleep(30)`, { signal: controller.signal }).catch((error: unknown) => error);
      await waitUntil(async () => (await probe.running("pg_sleep")) === 1, 5000, "never started");
      controller.abort(new Error("stop"));
      const { ms } = await timed(() => running);
      // Not answered by the cancel: the connection was closed after the grace period.
      expect(ms).toBeGreaterThanOrEqual(CANCEL_GRACE_MS - 50);
      expect(ms).toBeLessThan(CANCEL_GRACE_MS + 500);
      await waitUntil(async () => (await probe.running("pg_sleep")) === 0, CONNECTION_CHECK_INTERVAL_MS + 1000, "statement still running");
      key.secretKey = secretKey;
    });

    it("has PostgreSQL stop the statements of an engine that died (client_connection_check_interval)", async () => {
      const client = await pool().connect();
      client.on("error", () => {});
      const { rows } = await client.query<{ client_connection_check_interval: string }>("SHOW client_connection_check_interval");
      expect(rows[0]?.client_connection_check_interval).toBe(`${CONNECTION_CHECK_INTERVAL_MS}ms`);
      const running = client.query("SELECT pg_sleep(30)").catch(() => {});
      await waitUntil(async () => (await probe.running("pg_sleep")) === 1, 5000, "never started");
      // The socket closes as it would if this process were killed.
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      await running;
      client.release(true);
      const ms = await waitUntil(async () => (await probe.running("pg_sleep")) === 0, 2000, "statement outlived its client");
      expect(ms).toBeLessThan(CONNECTION_CHECK_INTERVAL_MS + 500);
    });
  });
});

describe("PGlite: a running statement cannot be interrupted", () => {
  let handle: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    handle = await openTestDatabase("pglite");
    db = handle.db;
    await db.exec("CREATE TABLE t (id int PRIMARY KEY)");
  });
  afterAll(async () => handle?.dispose());

  it("accepts SET statement_timeout but does not enforce it", async () => {
    await db.exec("SET statement_timeout = 100");
    try {
      const { ms } = await timed(() => db.query(sql`SELECT pg_sleep(0.5)`));
      expect(ms).toBeGreaterThanOrEqual(450);
    } finally {
      await db.exec("RESET statement_timeout");
    }
  });

  it("runs no timer while a statement runs, so an abort lands only after it", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("late")), 50);
    const { result, ms } = await timed(() =>
      db.query<{ done: boolean }>(sql`SELECT true AS done FROM pg_sleep(0.4)`, { signal: controller.signal }),
    );
    expect(result.rows).toEqual([{ done: true }]);
    expect(ms).toBeGreaterThanOrEqual(380);
    // The timer was due 350 ms before the statement ended, and runs only now.
    expect(controller.signal.aborted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(controller.signal.aborted).toBe(true);
  });

  it("starts no statement once aborted", async () => {
    const reason = new Error("aborted");
    await expect(db.query(sql`INSERT INTO t VALUES (1)`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await expect(db.transaction(async (tx) => tx.query(sql`INSERT INTO t VALUES (2)`), { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect((await db.query(sql`SELECT id FROM t`)).rows).toEqual([]);
  });

  it("rolls a transaction back when it is aborted between statements or after the last one", async () => {
    for (const abortAfter of [1, 2]) {
      const controller = new AbortController();
      const outcome = db
        .transaction(
          async (tx) => {
            await tx.query(sql`INSERT INTO t VALUES (10)`);
            if (abortAfter === 1) controller.abort(new Error("aborted"));
            await tx.query(sql`INSERT INTO t VALUES (11)`);
            if (abortAfter === 2) controller.abort(new Error("aborted"));
          },
          { signal: controller.signal },
        )
        .catch((error: Error) => error.message);
      expect(await outcome).toBe("aborted");
      expect((await db.query(sql`SELECT id FROM t`)).rows).toEqual([]);
    }
  });
});

describe("PGlite: the engine answers with the abort's reason", () => {
  const setup = useTestEngine("pglite", {
    schema: "CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1);",
    metadata: () => metadataWith([{ table: { schema: "public", name: "item" } }]),
  });

  it("answers a query and a mutation whose signal is aborted with the reason, running nothing", async () => {
    const { HasuraError } = await import("../src/engine/errors/index.js");
    const signal = AbortSignal.abort(new HasuraError("time-limit-exceeded", "time limit of 1s exceeded"));
    expect(JSON.parse(await setup.engine.execute({ query: "{ item { id } }" }, ADMIN, { signal }))).toEqual(
      timedOut("time-limit-exceeded", "1s"),
    );
    const mutation = "mutation { insert_item_one(object: { id: 2 }) { id } }";
    expect(JSON.parse(await setup.engine.execute({ query: mutation }, ADMIN, { signal }))).toEqual(timedOut("time-limit-exceeded", "1s"));
    expect(await setup.run("{ item { id } }")).toEqual({ data: { item: [{ id: 1 }] } });
  });
});
