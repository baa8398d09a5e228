/**
 * The change signal of live queries: a poller polls when a table its statement reads was written
 * (a statement-level trigger's NOTIFY), at once and not otherwise, and falls back to the refetch
 * interval whenever the signal could miss a change: what it reads cannot be observed (a view), the
 * signal is turned off, or (PostgreSQL) the listening connection was lost, after which it polls at
 * once. Statements are counted by the engine's own counter. The refetch interval here is 5 s, so a
 * change seen within a second came by the signal.
 */
import { createLogger, sql } from "@platform/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import type { Session } from "../src/engine/request/session.js";
import { openConfiguredDatabase } from "../src/server.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { Inbox, sleep, until } from "./support/inbox.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const ADMIN: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const REFETCH_MS = 5000;

async function setUp(service: Service): Promise<void> {
  const created = await admin(service, "/v2/query", {
    type: "run_sql",
    args: {
      sql: `CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL);
        INSERT INTO counters SELECT i, 0 FROM generate_series(1, 1000) i;
        CREATE TABLE other (id int PRIMARY KEY);
        CREATE VIEW counters_view AS SELECT * FROM counters;
        CREATE TABLE deadlines (id int PRIMARY KEY, due timestamptz NOT NULL);
        CREATE DOMAIN moment AS timestamptz;
        CREATE TABLE reminders (id int PRIMARY KEY, at moment NOT NULL);
        CREATE TABLE parents (id int NOT NULL);
        CREATE TABLE children () INHERITS (parents);`,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const tracked = await admin(service, "/v1/metadata", {
    type: "bulk",
    args: [
      ...["counters", "other", "counters_view", "deadlines", "reminders", "parents"].map((table) => ({
        type: "pg_track_table",
        args: { table },
      })),
      // A role that sees only what is due: its filter reads the clock.
      {
        type: "pg_create_select_permission",
        args: { table: "deadlines", role: "user", permission: { columns: ["id"], filter: { due: { _lte: "now()" } } } },
      },
    ],
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

  async function subscribe(query: string, variables?: Record<string, unknown>, session = ADMIN): Promise<Inbox> {
    const inbox = new Inbox();
    const started = await service.runtime.start({ query, variables }, session, {}, inbox);
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
    // Not on parents: its children's writes would not fire it.
    expect(rows.map((r) => r.name)).toEqual(["counters", "deadlines", "other", "reminders"]);
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

  it("polls a table written without pause at most once per HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL_MIN_INTERVAL (100 ms)", async () => {
    const inbox = await subscribe("subscription { counters(where: {id: {_eq: 4}}) { value } }");
    const before = sent();
    // 50 writes, 20 ms apart: polled at once each time, that would be 50 polls.
    const started = Date.now();
    for (let value = 1; value <= 50; value++) {
      await handle.db.query(sql`UPDATE counters SET value = ${value} WHERE id = 4`);
      await sleep(20);
    }
    const elapsed = Date.now() - started;
    await until(() => JSON.stringify(inbox.last) === JSON.stringify({ data: { counters: [{ value: 50 }] } }));
    // Every poller reading counters polls (those of the tests before this one too), and a view's
    // poller may poll once on its interval.
    const pollers = service.runtime.pollerReads.filter((reads) => reads.tables.has("public.counters")).length;
    const polls = sent() - before;
    expect(polls).toBeGreaterThanOrEqual(2 * pollers);
    expect(polls).toBeLessThanOrEqual(pollers * (Math.ceil(elapsed / 100) + 2) + 1);
    expect(polls).toBeLessThan(pollers * 50);
  });

  it("polls a view every refetch interval: its tables' writes are not observed", async () => {
    const inbox = await subscribe("subscription { counters_view(where: {id: {_eq: 2}}) { value } }");
    await handle.db.query(sql`UPDATE counters SET value = 100 WHERE id = 2`);
    await sleep(1000);
    expect(inbox.bodies).toHaveLength(1);
    await until(() => inbox.bodies.length === 2, REFETCH_MS + 2000);
    expect(inbox.last).toEqual({ data: { counters_view: [{ value: 100 }] } });
  }, 15_000);

  it("polls every refetch interval while a cohort compares a date with the clock, as a query or a permission may", async () => {
    await handle.db.query(sql`INSERT INTO deadlines VALUES (1, now() - interval '1 hour'), (2, now() + interval '1500 milliseconds')`);
    await handle.db.query(sql`INSERT INTO reminders SELECT id, due FROM deadlines`);
    // A fixed date: the signal covers it, nothing is sent while nothing is written.
    const fixed = await subscribe('subscription { deadlines(where: {due: {_lte: "3000-01-01"}}) { id } }');
    let idle = sent();
    await sleep(600);
    expect(sent()).toBe(idle);

    // `now()` in a variable, in the query's text and in the role's filter: row 2 comes due with no
    // write, and is seen at the next refetch interval; meanwhile polls go on.
    const asked = await subscribe("subscription ($at: timestamptz!) { deadlines(where: {due: {_lte: $at}}, order_by: {id: asc}) { id } }", {
      at: "now()",
    });
    const literal = await subscribe('subscription { deadlines(where: {due: {_lte: "now"}}, order_by: {id: asc}) { id } }');
    const user: Session = { role: "user", variables: { "x-hasura-role": "user" }, isAdmin: false, useBackendOnly: false };
    const permitted = await subscribe("subscription { deadlines(order_by: {id: asc}) { id } }", undefined, user);
    for (const inbox of [asked, literal, permitted]) expect(inbox.last).toEqual({ data: { deadlines: [{ id: 1 }] } });
    // A column of a domain over timestamptz.
    const domain = await subscribe('subscription { reminders(where: {at: {_lte: "now"}}, order_by: {id: asc}) { id } }');
    expect(domain.last).toEqual({ data: { reminders: [{ id: 1 }] } });
    idle = sent();
    const all = [asked, literal, permitted, domain];
    await until(() => all.every((inbox) => inbox.bodies.length === 2), REFETCH_MS + 3000);
    for (const inbox of [asked, literal, permitted]) expect(inbox.last).toEqual({ data: { deadlines: [{ id: 1 }, { id: 2 }] } });
    expect(domain.last).toEqual({ data: { reminders: [{ id: 1 }, { id: 2 }] } });
    expect(sent()).toBeGreaterThan(idle);
    // The fixed date's cohort was not written to: it was answered once.
    expect(fixed.bodies).toEqual([{ data: { deadlines: [{ id: 1 }, { id: 2 }] } }]);
  }, 15_000);

  it("polls a table with inheritance children every refetch interval: their writes are not signalled", async () => {
    const inbox = await subscribe("subscription { parents { id } }");
    expect(inbox.last).toEqual({ data: { parents: [] } });
    await handle.db.query(sql`INSERT INTO children VALUES (1)`);
    await until(() => inbox.bodies.length === 2, REFETCH_MS + 2000);
    expect(inbox.last).toEqual({ data: { parents: [{ id: 1 }] } });
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

/**
 * What only a server shows: a table the engine's role cannot put a trigger on, and the listening
 * connection's own URL (HASURA_GRAPHQL_LISTEN_DATABASE_URL), which a transaction-mode pooler makes
 * necessary; one naming another database is caught by the probe, and the engine polls.
 */
describe.runIf(testBackends.includes("postgres"))("the change signal on a server (postgres)", () => {
  let handle: TestDatabase;
  const role = `lq_reader_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const closing: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    handle = await openTestDatabase("postgres");
    await handle.db.exec(`CREATE TABLE notes (id int PRIMARY KEY, value int NOT NULL);
      INSERT INTO notes VALUES (1, 0);
      CREATE TABLE locked (id int PRIMARY KEY, value int NOT NULL);
      INSERT INTO locked VALUES (1, 0);
      CREATE ROLE ${role} LOGIN;
      GRANT CREATE ON DATABASE ${new URL(handle.url as string).pathname.slice(1)} TO ${role};
      GRANT USAGE, CREATE ON SCHEMA public TO ${role};
      GRANT SELECT ON locked TO ${role};`);
  }, 60_000);
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
    await handle?.dispose();
    const server = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await server.connect();
    await server.query(`DROP ROLE IF EXISTS ${role}`);
    await server.end();
  });

  /**
   * The engine on its own pool as its settings open it (`url`, listening on `listenUrl`:
   * HASURA_GRAPHQL_LISTEN_DATABASE_URL), its refetch interval 5 s, `table` tracked.
   */
  async function engine(url: string, table: string, listenUrl?: string): Promise<Service> {
    const env = { HASURA_GRAPHQL_DATABASE_URL: url, ...(listenUrl ? { HASURA_GRAPHQL_LISTEN_DATABASE_URL: listenUrl } : {}) };
    const db = await openConfiguredDatabase(readGraphqlConfig(env), createLogger({ level: "silent" }));
    closing.push(() => db.close());
    const service = await openService(db, { HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: String(REFETCH_MS) });
    closing.push(() => service.close());
    // The metadata is the database's: an engine before this one may have tracked it.
    const tracked = await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table } });
    if ((tracked.body as { code?: string }).code !== "already-tracked") expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    return service;
  }

  async function subscribe(service: Service, table: string): Promise<Inbox> {
    const inbox = new Inbox();
    const started = await service.runtime.start({ query: `subscription { ${table} { id value } }` }, ADMIN, {}, inbox);
    if (started.kind !== "subscription") throw new Error(started.response.body);
    closing.push(async () => started.stop());
    await until(() => inbox.bodies.length === 1);
    return inbox;
  }

  /** Writes `value` to `table` by plain SQL; resolves to how long its subscriber took to see it. */
  async function seen(inbox: Inbox, table: string, value: number): Promise<number> {
    const before = inbox.bodies.length;
    const started = Date.now();
    await handle.db.exec(`UPDATE ${table} SET value = ${value}`);
    await until(() => inbox.bodies.length > before, REFETCH_MS + 3000);
    expect(inbox.last).toEqual({ data: { [table]: [{ id: 1, value }] } });
    return Date.now() - started;
  }

  it("polls a table its role may not put a trigger on every refetch interval", async () => {
    const url = new URL(handle.url as string);
    url.username = role;
    const service = await engine(url.toString(), "locked");
    const { rows } = await handle.db.query(sql`SELECT 1 FROM pg_trigger WHERE tgname = 'hdb_live_query_change'`);
    expect(rows).toEqual([]);
    const inbox = await subscribe(service, "locked");
    expect(await seen(inbox, "locked", 1)).toBeGreaterThan(1000);
  }, 30_000);

  it("listens on its own URL when one is set", async () => {
    const url = new URL(handle.url as string);
    url.searchParams.set("application_name", "hdb_listener");
    const service = await engine(handle.url as string, "notes", url.toString());
    const { rows } = await handle.db.query<{ query: string }>(
      sql`SELECT query FROM pg_stat_activity WHERE application_name = 'hdb_listener' AND datname = current_database()`,
    );
    expect(rows.map((r) => r.query)).toEqual(['LISTEN "hdb_table_changed"']);
    const inbox = await subscribe(service, "notes");
    expect(await seen(inbox, "notes", 2)).toBeLessThan(1000);
  }, 30_000);

  it("polls every refetch interval when its probe does not reach the listening connection (a listen URL naming another database)", async () => {
    const service = await engine(handle.url as string, "notes", process.env.TEST_DATABASE_URL);
    const inbox = await subscribe(service, "notes");
    const idle = service.runtime.statementsSent;
    expect(await seen(inbox, "notes", 3)).toBeGreaterThan(1000);
    expect(service.runtime.statementsSent).toBeGreaterThan(idle);
  }, 30_000);
});
