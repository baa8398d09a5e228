/**
 * The change signal of live queries: a poller polls when a table its statement reads was written
 * (a statement-level trigger's NOTIFY), at once and not otherwise, and falls back to the refetch
 * interval whenever the signal could miss a change: what it reads cannot be observed (a view), the
 * signal is turned off, or (PostgreSQL) the listening connection was lost, after which it polls at
 * once. Statements are counted by the engine's own counter. The refetch interval here is 5 s, so a
 * change seen within a second came by the signal.
 */
import { sql } from "@platform/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../src/engine/request/session.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const ADMIN: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const REFETCH_MS = 5000;

class Inbox {
  readonly bodies: unknown[] = [];
  push = (body: string) => {
    this.bodies.push(JSON.parse(body));
  };
  get last(): unknown {
    return this.bodies[this.bodies.length - 1];
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setUp(service: Service): Promise<void> {
  const created = await admin(service, "/v2/query", {
    type: "run_sql",
    args: {
      sql: `CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL);
        INSERT INTO counters SELECT i, 0 FROM generate_series(1, 1000) i;
        CREATE TABLE other (id int PRIMARY KEY);
        CREATE VIEW counters_view AS SELECT * FROM counters;`,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const tracked = await admin(service, "/v1/metadata", {
    type: "bulk",
    args: ["counters", "other", "counters_view"].map((table) => ({ type: "pg_track_table", args: { table } })),
  });
  expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
}

describe.each(testBackends)("the change signal (%s)", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  const stops: Array<() => void> = [];
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: String(REFETCH_MS) });
    await setUp(service);
  }, 60_000);
  afterAll(async () => {
    for (const stop of stops) stop();
    await service?.close();
    await handle?.dispose();
  });

  async function subscribe(query: string): Promise<Inbox> {
    const inbox = new Inbox();
    const started = await service.runtime.start({ query }, ADMIN, {}, inbox);
    if (started.kind !== "subscription") throw new Error(started.response.body);
    stops.push(started.stop);
    await until(() => inbox.bodies.length === 1);
    return inbox;
  }

  const sent = () => service.runtime.statementsSent;

  it("installs its trigger on each tracked table, not on a view", async () => {
    const { rows } = await handle.db.query<{ name: string }>(
      sql`SELECT c.relname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'hdb_live_query_change' ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(["counters", "other"]);
  });

  it("sends no statement while nothing changes, and polls at once when a table it reads is written", async () => {
    const inbox = await subscribe("subscription { counters(where: {id: {_eq: 1}}) { id value } }");
    const idle = sent();
    await sleep(1000);
    expect(sent()).toBe(idle);

    // A write through GraphQL: seen well within the 5 s interval.
    const started = Date.now();
    await graphql(service, { query: "mutation { update_counters_by_pk(pk_columns: {id: 1}, _set: {value: 1}) { id } }" }, ADMIN_HEADERS);
    await until(() => inbox.bodies.length === 2);
    expect(inbox.last).toEqual({ data: { counters: [{ id: 1, value: 1 }] } });
    expect(Date.now() - started).toBeLessThan(1000);

    // A write to a table it does not read costs it nothing.
    const before = sent();
    await handle.db.query(sql`INSERT INTO other VALUES (1)`);
    await sleep(300);
    expect(sent()).toBe(before);
  });

  it("sees a write made by plain SQL on another connection, and a statement of many rows costs one poll", async () => {
    const inbox = await subscribe("subscription { counters_aggregate { aggregate { sum { value } } } }");
    const before = sent();
    if (handle.url) {
      const other = new pg.Client({ connectionString: handle.url });
      await other.connect();
      await other.query("UPDATE counters SET value = value + 1");
      await other.end();
    } else await handle.db.query(sql`UPDATE counters SET value = value + 1`);
    await until(() => inbox.bodies.length === 2);
    const sum = (inbox.last as { data: { counters_aggregate: { aggregate: { sum: { value: number } } } } }).data.counters_aggregate
      .aggregate.sum.value;
    expect(sum).toBeGreaterThanOrEqual(1000);
    await sleep(300);
    // One statement changed 1,000 rows: one notification, one poll (of the pollers reading counters).
    expect(sent() - before).toBeLessThanOrEqual(service.runtime.pollerReads.length);
    expect(inbox.bodies).toHaveLength(2);
  });

  it("polls a view every refetch interval: its tables' writes are not observed", async () => {
    const inbox = await subscribe("subscription { counters_view(where: {id: {_eq: 2}}) { value } }");
    await handle.db.query(sql`UPDATE counters SET value = 100 WHERE id = 2`);
    await sleep(1000);
    expect(inbox.bodies).toHaveLength(1);
    await until(() => inbox.bodies.length === 2, REFETCH_MS + 2000);
    expect(inbox.last).toEqual({ data: { counters_view: [{ value: 100 }] } });
  }, 15_000);

  it.runIf(backend === "postgres")(
    "falls back to the interval while its connection is lost, and polls at once when it is back",
    async () => {
      const inbox = await subscribe("subscription { counters(where: {id: {_eq: 3}}) { value } }");
      const { rows } = await handle.db.query<{ pid: number }>(
        sql`SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "hdb_table_changed"' AND datname = current_database()`,
      );
      expect(rows).toHaveLength(1);
      await handle.db.query(sql`SELECT pg_terminate_backend(${rows[0]?.pid})`);
      // Written while nobody listens: the notification is lost, the poll after the reconnection finds it.
      await handle.db.query(sql`UPDATE counters SET value = 7 WHERE id = 3`);
      await until(() => inbox.bodies.length === 2, REFETCH_MS + 2000);
      expect(inbox.last).toEqual({ data: { counters: [{ value: 7 }] } });
      // Listening again: a write is seen at once.
      await until(async () => {
        const again = await handle.db.query(
          sql`SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN "hdb_table_changed"' AND datname = current_database()`,
        );
        return again.rows.length === 1;
      });
      const started = Date.now();
      await handle.db.query(sql`UPDATE counters SET value = 8 WHERE id = 3`);
      await until(() => inbox.bodies.length === 3);
      expect(Date.now() - started).toBeLessThan(1000);
    },
    20_000,
  );
});

describe.each(testBackends)("the change signal turned off (%s)", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, {
      HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "200",
      HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL: "false",
    });
    await setUp(service);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  it("installs no trigger, and polls every refetch interval", async () => {
    const { rows } = await handle.db.query(sql`SELECT 1 FROM pg_trigger WHERE tgname = 'hdb_live_query_change'`);
    expect(rows).toEqual([]);
    const inbox = new Inbox();
    const started = await service.runtime.start({ query: "subscription { counters(where: {id: {_eq: 1}}) { value } }" }, ADMIN, {}, inbox);
    if (started.kind !== "subscription") throw new Error(started.response.body);
    try {
      await until(() => inbox.bodies.length === 1);
      const before = service.runtime.statementsSent;
      await sleep(1000);
      expect(service.runtime.statementsSent - before).toBeGreaterThanOrEqual(3);
    } finally {
      started.stop();
    }
  });
});
