/**
 * A write to a table with an event trigger wakes the delivery at once (the change signal's
 * notification), without waiting for the fetch interval, here a minute; and an instance whose
 * fetch interval is 0 delivers nothing while its writes are still captured.
 */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type HandlerServer, startHandlerServer } from "./support/handler-server.js";
import { sleep, until } from "./support/inbox.js";
import { admin, openService, type Service } from "./support/limits.js";

describe.each(testBackends)("event delivery wake-up on %s", (backend) => {
  let handle: TestDatabase;
  let receiver: HandlerServer;
  let service: Service;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    receiver = await startHandlerServer();
    receiver.route("/now", () => ({ status: 200 }));
    service = await openService(handle.db, { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "60000", EVENT_RECEIVER: receiver.url });
    await admin(service, "/v2/query", { type: "run_sql", args: { sql: "CREATE TABLE note (id serial PRIMARY KEY, body text)" } });
    await admin(service, "/v1/metadata", { type: "pg_track_table", args: { table: "note" } });
    await admin(service, "/v1/metadata", {
      type: "pg_create_event_trigger",
      args: { name: "note_now", table: "note", webhook: "{{EVENT_RECEIVER}}/now", insert: { columns: "*" } },
    });
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
    await handle?.dispose();
  });

  it("delivers soon after the commit, not at the next fetch", async () => {
    // The signal is trusted once its probe arrived (at start-up).
    await sleep(300);
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = receiver.received.length;
      const committed = Date.now();
      await handle.db.query(sql`INSERT INTO note (body) VALUES ('hello')`);
      await until(() => receiver.received.length > before, 5000);
      latencies.push(Date.now() - committed);
    }
    // Within tens of milliseconds on a quiet machine; the bound leaves room for a loaded one (CI runs
    // suites side by side) and is still far from the next fetch, a minute away.
    expect(Math.max(...latencies)).toBeLessThan(3000);
  });

  it("captures but does not deliver on an instance whose fetch interval is 0", async () => {
    await service.close();
    service = await openService(handle.db, { HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: "0", EVENT_RECEIVER: receiver.url });
    const before = receiver.received.length;
    await handle.db.query(sql`INSERT INTO note (body) VALUES ('kept')`);
    await sleep(1000);
    expect(receiver.received.length).toBe(before);
    const { rows } = await handle.db.query<{ delivered: boolean }>(
      sql`SELECT delivered FROM hdb_catalog.event_log l WHERE l.payload -> 'data' -> 'new' ->> 'body' = 'kept'`,
    );
    expect(rows).toEqual([{ delivered: false }]);
  });
});
