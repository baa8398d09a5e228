/**
 * On PostgreSQL, the heavy requests that the bounds let through are answered quickly and leave
 * nothing behind: each within 2 s, none of the service's backends still active a second after
 * the answer (pg_stat_activity, by the service's own application_name, since other test files
 * run at the same time), and the serving backends' peak resident memory under 512 MB (read from
 * /proc when the server runs on this machine). An operation split over several statements reads
 * one snapshot: a row committed by another connection between its statements is in none of them.
 */
import { existsSync, readFileSync } from "node:fs";
import { type Database, openDatabase, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aliases, asRoleHeaders, type BoundsSetup, fanOut, openBoundsService } from "./support/bounds.js";
import { ADMIN_HEADERS, admin, graphql } from "./support/limits.js";

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;
if (!serverUrl) console.warn("limits-probes: TEST_DATABASE_URL is not set, the PostgreSQL probes are skipped");

/** The peak resident memory (MB) of a local PostgreSQL backend, or null when it cannot be read here. */
function backendPeakMb(pid: number): number | null {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return null;
  const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(status, "utf8"))?.[1];
  return peak === undefined ? null : Number(peak) / 1024;
}

describe.runIf(serverUrl)("heavy requests the bounds let through, on PostgreSQL", () => {
  let setup: BoundsSetup;
  let monitor: Database;
  beforeAll(async () => {
    setup = await openBoundsService("postgres");
    monitor = await openDatabase({ url: serverUrl as string, maxConnections: 1 });
  }, 60_000);
  afterAll(async () => {
    await monitor?.close();
    await setup?.close();
  });

  /** The service's backends: their pids and whether each is running a statement. */
  async function backends(): Promise<Array<{ pid: number; active: boolean }>> {
    const { rows } = await monitor.query<{ pid: number; active: boolean }>(
      sql`SELECT pid, state = 'active' AS active FROM pg_stat_activity WHERE application_name = ${setup.applicationName}`,
    );
    return rows;
  }

  /**
   * Each probe, and the statements it sends: its data statements, and for a role other than admin
   * as many EXPLAINs the first time its shape is seen (the cost limit's estimate, then kept).
   */
  const probes: Array<[string, () => Promise<{ status: number; body: unknown }>, number]> = [
    [
      "333 aliases of a three-level selection, as a signed-in role (999 nodes, five statements)",
      () => graphql(setup.service, { query: aliases(333, "users { posts { comments { text } } }") }, asRoleHeaders()),
      5 + 5,
    ],
    [
      "999 aliases of a flat selection, as a signed-in role (ten statements)",
      () => graphql(setup.service, { query: aliases(999, "posts { id title }") }, asRoleHeaders()),
      10 + 10,
    ],
    [
      "500 aliases of a three-level selection with limits, as admin (seven statements)",
      () =>
        graphql(
          setup.service,
          { query: aliases(500, "users(limit: 2) { posts(limit: 2) { comments(limit: 2) { text } } }") },
          ADMIN_HEADERS,
        ),
      7,
    ],
    [
      "a batch of 100 operations, as a signed-in role",
      () =>
        graphql(
          setup.service,
          Array.from({ length: 100 }, () => ({ query: "{ posts { id title } }" })),
          asRoleHeaders(),
        ),
      100 + 1,
    ],
    [
      "a ten-level fan-out over a role's own rows (100,000 leaves)",
      () => graphql(setup.service, { query: fanOut(10) }, asRoleHeaders()),
      1 + 1,
    ],
  ];

  it.each(probes)("%s: answered within 2 s, no backend active 1 s later, under 512 MB", async (_name, probe, statements) => {
    const sent = setup.service.runtime.statementsSent;
    const start = Date.now();
    const { status, body } = await probe();
    const ms = Date.now() - start;
    expect(setup.service.runtime.statementsSent - sent).toBe(statements);
    expect(status).toBe(200);
    const answers = Array.isArray(body) ? body : [body];
    for (const answer of answers) expect(answer, JSON.stringify(answer).slice(0, 300)).toHaveProperty("data");
    expect(ms).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const seen = await backends();
    expect(seen.filter((b) => b.active)).toEqual([]);
    const peaks = seen.map((b) => backendPeakMb(b.pid));
    if (peaks.some((p) => p === null))
      console.warn("limits-probes: the server's backends are not readable under /proc here; memory not checked");
    else expect(Math.max(...(peaks as number[]))).toBeLessThan(512);
  });
});

describe.runIf(serverUrl)("an operation split over several statements reads one snapshot", () => {
  let setup: BoundsSetup;
  let writer: Database;
  beforeAll(async () => {
    // One root field per statement: the operation below is two statements.
    setup = await openBoundsService("postgres", { HASURA_GRAPHQL_STATEMENT_ROOT_FIELDS: "1" });
    const view = await admin(setup.service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE VIEW slow_posts AS SELECT p.* FROM posts p, pg_sleep(0.6) s;" },
    });
    expect(view.status).toBe(200);
    await admin(setup.service, "/v1/metadata", {
      type: "pg_track_table",
      args: { source: "default", table: { schema: "public", name: "slow_posts" } },
    });
    writer = await openDatabase({ url: setup.handle.url as string, maxConnections: 1 });
  }, 60_000);
  afterAll(async () => {
    await writer?.close();
    await setup?.close();
  });

  it("a row committed between its statements is in none of them", async () => {
    const query = "{ a: slow_posts_aggregate { aggregate { count } } b: posts_aggregate { aggregate { count } } }";
    const answer = graphql(setup.service, { query }, ADMIN_HEADERS);
    // While the first statement sleeps, another connection commits a post.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await writer.query(sql`INSERT INTO posts (id, user_id, title) VALUES (5000, 1, 'written meanwhile')`);
    const { body } = await answer;
    expect(body).toEqual({ data: { a: { aggregate: { count: 3000 } }, b: { aggregate: { count: 3000 } } } });
    // The row was there for anyone reading after it: the second statement ran after its commit.
    const after = await graphql(setup.service, { query: "{ posts_aggregate { aggregate { count } } }" }, ADMIN_HEADERS);
    expect(after.body).toEqual({ data: { posts_aggregate: { aggregate: { count: 3001 } } } });
  });
});
