/**
 * Two engine instances over one database, as the service scales out: each serves its own sockets
 * from its own pollers (a subscriber on either sees a write made through the other, each instance
 * sending its own poll statements), and a permission revoked through one instance closes the
 * sockets of both with 1012 (the other learns of it by its metadata poll), after which the
 * subscription is refused on either.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { until } from "./support/inbox.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";
import { RawSocket, socketUrl } from "./support/ws.js";

const USER_1 = { ...ADMIN_HEADERS, "x-hasura-role": "user", "x-hasura-user-id": "1" };
const NOTES = "subscription { notes(order_by: {id: asc}) { id body } }";

describe.each(testBackends)("subscriptions on two instances (%s)", (backend) => {
  let handle: TestDatabase;
  let services: Service[];
  let urls: string[];
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    const env = { HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "100", HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "100" };
    services = [await openService(handle.db, env), await openService(handle.db, env)];
    const created = await admin(services[0] as Service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: "CREATE TABLE notes (id int PRIMARY KEY, owner int NOT NULL, body text NOT NULL); INSERT INTO notes VALUES (1, 1, 'mine'), (2, 2, 'theirs');",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const tracked = await admin(services[0] as Service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "notes" } },
        {
          type: "pg_create_select_permission",
          args: { table: "notes", role: "user", permission: { columns: ["id", "body"], filter: { owner: { _eq: "X-Hasura-User-Id" } } } },
        },
      ],
    });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
    urls = [];
    for (const service of services) urls.push(socketUrl(await service.app.listen({ host: "127.0.0.1", port: 0 })));
    // The second instance has read the metadata the first wrote.
    await until(async () => {
      const answer = await graphql(services[1] as Service, { query: "{ notes { id } }" }, USER_1);
      return JSON.stringify(answer.body) === JSON.stringify({ data: { notes: [{ id: 1 }] } });
    });
  }, 60_000);
  afterAll(async () => {
    for (const service of services ?? []) await service.close();
    await handle?.dispose();
  });

  async function subscribed(url: string): Promise<RawSocket> {
    const socket = new RawSocket(url, "graphql-transport-ws");
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: USER_1 } });
    await socket.next((f) => f.type === "connection_ack");
    socket.send({ id: "n", type: "subscribe", payload: { query: NOTES } });
    return socket;
  }

  it("serves each instance's sockets from its own pollers, and a revoked permission closes both instances' sockets", async () => {
    const [first, second] = [await subscribed(urls[0] as string), await subscribed(urls[1] as string)];
    const mine = { id: "n", type: "next", payload: { data: { notes: [{ id: 1, body: "mine" }] } } };
    expect(await first.next((f) => f.id === "n")).toEqual(mine);
    expect(await second.next((f) => f.id === "n")).toEqual(mine);
    expect(services.map((s) => s.runtime.subscribers)).toEqual([1, 1]);

    // A write through the first instance reaches the subscriber of the second (its own poll finds it).
    const before = (services[1] as Service).runtime.statementsSent;
    const inserted = await graphql(
      services[0] as Service,
      {
        query:
          'mutation { insert_notes(objects: [{id: 3, owner: 1, body: "new"}, {id: 4, owner: 2, body: "not mine"}]) { affected_rows } }',
      },
      ADMIN_HEADERS,
    );
    expect(inserted.body).toEqual({ data: { insert_notes: { affected_rows: 2 } } });
    const both = {
      id: "n",
      type: "next",
      payload: {
        data: {
          notes: [
            { id: 1, body: "mine" },
            { id: 3, body: "new" },
          ],
        },
      },
    };
    expect(await first.next((f) => f.id === "n")).toEqual(both);
    expect(await second.next((f) => f.id === "n")).toEqual(both);
    expect((services[1] as Service).runtime.statementsSent).toBeGreaterThan(before);

    // Revoked through the first instance: its socket closes at once, the second's once it has read the metadata.
    const dropped = await admin(services[0] as Service, "/v1/metadata", {
      type: "pg_drop_select_permission",
      args: { table: "notes", role: "user" },
    });
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);
    const started = Date.now();
    expect(await first.closed).toEqual({ code: 1012, reason: "metadata changed" });
    expect(await second.closed).toEqual({ code: 1012, reason: "metadata changed" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(services.map((s) => s.runtime.subscribers)).toEqual([0, 0]);

    // Subscribing again, on either instance, is refused: the role reads no table, so it has no subscription root.
    for (const url of urls) {
      const again = await subscribed(url);
      expect(await again.next((f) => f.id === "n")).toEqual({
        id: "n",
        type: "error",
        payload: [{ message: "no subscriptions exist", extensions: { path: "$", code: "validation-failed" } }],
      });
      again.close();
    }
  });
});
