/**
 * GraphQL over WebSocket on /v1/graphql, as Hasura serves it, driven by real clients
 * (graphql-ws's, Apollo's subscriptions-transport-ws) and frame by frame: the protocol chosen by
 * Sec-WebSocket-Protocol (the legacy one when none is named), connection_init authenticated as
 * an HTTP request, queries and mutations answered over the socket, refusals in Hasura's words,
 * the protocols' close codes, keep-alives only after the ack, sockets closed with 1012 when
 * metadata changes, and at a JWT's expiry.
 */
import { type Database, openDatabase, sql } from "@platform/core";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BoundsSetup, openBoundsService } from "./support/bounds.js";
import { testBackends } from "./support/db.js";
import { ADMIN_HEADERS, admin, graphql, SECRET } from "./support/limits.js";
import { Answers, legacyClient, RawSocket, socketUrl, transportClient } from "./support/ws.js";

const JWT_KEY = "a-secret-of-at-least-32-characters-for-hs256";
const USER_7 = { ...ADMIN_HEADERS, "x-hasura-role": "user", "x-hasura-user-id": "7" };

/** A token for role `user` (user `id`) that expires in `seconds`. */
function token(id: string, seconds: number): Promise<string> {
  return new SignJWT({
    "https://hasura.io/jwt/claims": { "x-hasura-allowed-roles": ["user"], "x-hasura-default-role": "user", "x-hasura-user-id": id },
  })
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
    .sign(new TextEncoder().encode(JWT_KEY));
}

describe.each(testBackends)("WebSocket transport (%s)", (backend) => {
  let setup: BoundsSetup;
  let url: string;
  beforeAll(async () => {
    setup = await openBoundsService(backend, {
      HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "100",
      HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE: "1",
      HASURA_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT: "1",
      HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({ type: "HS256", key: JWT_KEY }),
    });
    url = socketUrl(await setup.service.app.listen({ host: "127.0.0.1", port: 0 }));
  }, 60_000);
  afterAll(async () => setup?.close());

  describe("graphql-transport-ws, with graphql-ws's client", () => {
    it("serves a subscription, a query and a mutation on one socket", async () => {
      const client = transportClient(url, USER_7);
      try {
        const live = new Answers();
        const stop = client.subscribe({ query: "subscription { users { id name } }" }, live.sink);
        await live.next(1);
        expect(live.values[0]).toEqual({ data: { users: [{ id: 7, name: "user 7" }] } });
        const query = new Answers();
        client.subscribe({ query: "query ($id: Int!) { users_by_pk(id: $id) { name } }", variables: { id: 7 } }, query.sink);
        await query.until(() => query.completed);
        expect(query.values).toEqual([{ data: { users_by_pk: { name: "user 7" } } }]);
        const mutation = new Answers();
        client.subscribe(
          { query: 'mutation { insert_posts_one(object: {id: 70001, title: "over the socket"}) { id title } }' },
          mutation.sink,
        );
        await mutation.until(() => mutation.completed);
        expect(mutation.values).toEqual([{ data: { insert_posts_one: { id: 70001, title: "over the socket" } } }]);
        stop();
      } finally {
        await client.dispose();
      }
    });

    it("answers a refused operation with Hasura's error, then complete", async () => {
      const socket = new RawSocket(url, "graphql-transport-ws");
      await socket.opened();
      socket.send({ type: "connection_init", payload: { headers: USER_7 } });
      expect(await socket.next()).toEqual({ type: "connection_ack" });
      socket.send({ id: "1", type: "subscribe", payload: { query: "subscription { nope { id } }" } });
      expect(await socket.next((f) => f.id === "1")).toEqual({
        id: "1",
        type: "error",
        payload: [
          {
            message: "field 'nope' not found in type: 'subscription_root'",
            extensions: { path: "$.selectionSet.nope", code: "validation-failed" },
          },
        ],
      });
      expect(await socket.next((f) => f.id === "1")).toEqual({ id: "1", type: "complete" });
      socket.close();
    });

    it("answers an error raised while the operation ran as its result, data null, as Hasura does", async () => {
      const socket = new RawSocket(url, "graphql-transport-ws");
      await socket.opened();
      socket.send({ type: "connection_init", payload: { headers: ADMIN_HEADERS } });
      expect(await socket.next()).toEqual({ type: "connection_ack" });
      // A duplicate primary key: planned fine, refused by PostgreSQL when it runs.
      const query = 'mutation { insert_users(objects: [{id: 1, name: "again"}]) { affected_rows } }';
      socket.send({ id: "m", type: "subscribe", payload: { query } });
      const answer = (await socket.next((f) => f.id === "m")) as { type: string; payload: { data: unknown; errors: unknown[] } };
      expect(answer.type).toBe("next");
      expect(answer.payload.data).toBeNull();
      expect(answer.payload.errors).toMatchObject([{ extensions: { code: "constraint-violation" } }]);
      expect(await socket.next((f) => f.id === "m")).toEqual({ id: "m", type: "complete" });
      // Over HTTP the same error is the response's only key, as Hasura answers it.
      const overHttp = await graphql(setup.service, { query }, ADMIN_HEADERS);
      expect(overHttp.body).toEqual({ errors: answer.payload.errors });
      socket.close();
    });

    it("pings after the ack, and closes with the protocol's codes", async () => {
      const socket = new RawSocket(url, "graphql-transport-ws");
      await socket.opened();
      expect(socket.protocol).toBe("graphql-transport-ws");
      socket.send({ type: "connection_init", payload: { headers: ADMIN_HEADERS } });
      await socket.next((f) => f.type === "connection_ack");
      expect(await socket.next((f) => f.type === "ping", 2500)).toMatchObject({ type: "ping" });
      socket.send({ type: "connection_init", payload: {} });
      expect(await socket.closed).toEqual({ code: 4429, reason: "Too many initialisation requests" });

      const early = new RawSocket(url, "graphql-transport-ws");
      await early.opened();
      early.send({ id: "1", type: "subscribe", payload: { query: "{ __typename }" } });
      expect((await early.closed).code).toBe(4401);

      const silent = new RawSocket(url, "graphql-transport-ws");
      expect((await silent.closed).code).toBe(4408);

      const refused = new RawSocket(url, "graphql-transport-ws");
      await refused.opened();
      refused.send({ type: "connection_init", payload: { headers: { "x-hasura-admin-secret": "wrong" } } });
      expect((await refused.closed).code).toBe(4403);

      const garbled = new RawSocket(url, "graphql-transport-ws");
      await garbled.opened();
      garbled.send("not json");
      expect((await garbled.closed).code).toBe(4400);
    });
  });

  describe("the legacy graphql-ws protocol", () => {
    it("is what a client naming no protocol gets; ka only after the ack", async () => {
      const socket = new RawSocket(url);
      await socket.opened();
      socket.send({ type: "test" });
      expect(await socket.next()).toMatchObject({ type: "connection_error" });
      socket.send({ type: "connection_init", payload: { headers: ADMIN_HEADERS } });
      expect(socket.count("ka")).toBe(0);
      expect(await socket.next()).toEqual({ type: "connection_ack" });
      expect(await socket.next()).toEqual({ type: "ka" });
      socket.send({ type: "stop" });
      expect(await socket.next()).toMatchObject({ type: "connection_error" });
      socket.send({ id: "2", type: "start", payload: { query: "query { users_by_pk(id: 1) { name } }" } });
      expect(await socket.next((f) => f.id === "2")).toEqual({
        id: "2",
        type: "data",
        payload: { data: { users_by_pk: { name: "user 1" } } },
      });
      expect(await socket.next((f) => f.id === "2")).toEqual({ id: "2", type: "complete" });
      socket.send({ id: "3", type: "start", payload: { query: "{ users { nope } }" } });
      expect(await socket.next((f) => f.id === "3")).toMatchObject({
        id: "3",
        type: "error",
        payload: { errors: [{ extensions: { code: "validation-failed" } }] },
      });
      socket.send({ type: "connection_terminate" });
      expect((await socket.closed).code).toBe(1000);
    });

    it("refuses connection_init without credentials with connection_error, and closes", async () => {
      const socket = new RawSocket(url, "graphql-ws");
      await socket.opened();
      socket.send({ type: "connection_init", payload: { headers: {} } });
      const refusal = (await socket.next()) as { type: string; payload: string };
      expect(refusal.type).toBe("connection_error");
      // Hasura closes the Apollo protocol's refused connection_init with 4400 and the failure as the reason.
      expect(await socket.closed).toEqual({ code: 4400, reason: `Connection initialization failed: ${refusal.payload}` });
    });

    it("serves Apollo's subscriptions-transport-ws client", async () => {
      const client = legacyClient(url, USER_7);
      try {
        const live = new Answers();
        const subscription = client
          .request({ query: "subscription { posts(order_by: {id: asc}, limit: 1) { id } }" })
          .subscribe({ next: live.sink.next, error: live.sink.error, complete: live.sink.complete });
        await live.next(1);
        expect(live.values[0]).toEqual({ data: { posts: [{ id: 6 }] } });
        subscription.unsubscribe();
      } finally {
        client.close();
      }
    });
  });

  it("closes every socket with 1012 when metadata changes", async () => {
    const socket = new RawSocket(url, "graphql-transport-ws");
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: USER_7 } });
    await socket.next((f) => f.type === "connection_ack");
    socket.send({ id: "s", type: "subscribe", payload: { query: "subscription { users { id } }" } });
    await socket.next((f) => f.id === "s");
    await admin(setup.service, "/v1/metadata", { type: "reload_metadata", args: {} });
    expect(await socket.closed).toEqual({ code: 1012, reason: "metadata changed" });
  });

  it("closes a socket when its JWT expires", async () => {
    const socket = new RawSocket(url, "graphql-transport-ws");
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: { Authorization: `Bearer ${await token("7", 2)}` } } });
    await socket.next((f) => f.type === "connection_ack");
    socket.send({ id: "s", type: "subscribe", payload: { query: "subscription { users { id } }" } });
    expect(await socket.next((f) => f.id === "s")).toEqual({ id: "s", type: "next", payload: { data: { users: [{ id: 7 }] } } });
    const start = Date.now();
    expect(await socket.closed).toEqual({ code: 4403, reason: "the session's credentials expired" });
    expect(Date.now() - start).toBeLessThan(3000);
  });

  it("checks the admin secret of connection_init", async () => {
    const client = transportClient(url, { "x-hasura-admin-secret": SECRET });
    try {
      const answers = new Answers();
      client.subscribe({ query: "{ users_by_pk(id: 2) { id } }" }, answers.sink);
      await answers.until(() => answers.completed);
      expect(answers.values).toEqual([{ data: { users_by_pk: { id: 2 } } }]);
    } finally {
      await client.dispose();
    }
  });
});

describe.each(testBackends)("a client that does not read (%s)", (backend) => {
  let setup: BoundsSetup;
  let url: string;
  beforeAll(async () => {
    setup = await openBoundsService(backend, {
      HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "50",
      HASURA_GRAPHQL_WEBSOCKET_MAX_BUFFERED_BYTES: "1024",
    });
    url = socketUrl(await setup.service.app.listen({ host: "127.0.0.1", port: 0 }));
  }, 60_000);
  afterAll(async () => setup?.close());

  it("is closed with 1013 once its unsent messages pass the bound, not buffered without end", async () => {
    const socket = new RawSocket(url, "graphql-transport-ws");
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: { ...ADMIN_HEADERS, "x-hasura-role": "reader" } } });
    await socket.next((f) => f.type === "connection_ack");
    // Some 700 KB an answer: more than the network's buffers take from a client that stopped reading.
    socket.send({ id: "big", type: "subscribe", payload: { query: "subscription { users { posts { comments { text } } } }" } });
    await socket.next((f) => f.id === "big", 10_000);
    socket.pause();
    // Each change is a new answer pushed; the network's buffers (several MB on loopback) fill, then the socket's.
    for (let i = 0; i < 40 && setup.service.runtime.subscribers > 0; i++) {
      const query = `mutation { update_comments(where: {id: {_eq: 1}}, _set: {text: "changed ${i}"}) { affected_rows } }`;
      await graphql(setup.service, { query }, ADMIN_HEADERS);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    socket.resume();
    expect(await socket.closed).toEqual({ code: 1013, reason: "the client reads too slowly" });
  });
});

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

describe.runIf(serverUrl)("a query over the socket is cancelled in PostgreSQL (postgres)", () => {
  let setup: BoundsSetup;
  let url: string;
  let monitor: Database;
  beforeAll(async () => {
    setup = await openBoundsService("postgres");
    const view = await admin(setup.service, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE VIEW sleepy AS SELECT 1 AS id FROM pg_sleep(30);" },
    });
    expect(view.status).toBe(200);
    await admin(setup.service, "/v1/metadata", {
      type: "pg_track_table",
      args: { source: "default", table: { schema: "public", name: "sleepy" } },
    });
    url = socketUrl(await setup.service.app.listen({ host: "127.0.0.1", port: 0 }));
    monitor = await openDatabase({ url: serverUrl as string, maxConnections: 1 });
  }, 60_000);
  afterAll(async () => {
    await monitor?.close();
    await setup?.close();
  });

  const running = async () => {
    const { rows } = await monitor.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${setup.applicationName} AND state = 'active' AND query LIKE '%sleepy%'`,
    );
    return rows[0]?.n ?? 0;
  };
  const within = async (check: () => Promise<boolean>, ms: number, what: string) => {
    const start = Date.now();
    while (!(await check())) {
      if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return Date.now() - start;
  };

  it.each([
    ["the client stops it (legacy stop)", "graphql-ws", (socket: RawSocket) => socket.send({ id: "q", type: "stop" })],
    [
      "the client completes it (graphql-transport-ws complete)",
      "graphql-transport-ws",
      (socket: RawSocket) => socket.send({ id: "q", type: "complete" }),
    ],
    ["the socket closes", "graphql-transport-ws", (socket: RawSocket) => socket.close()],
  ])("when %s", async (_what, protocol, end) => {
    const socket = new RawSocket(url, protocol);
    await socket.opened();
    socket.send({ type: "connection_init", payload: { headers: ADMIN_HEADERS } });
    await socket.next((f) => f.type === "connection_ack");
    socket.send({ id: "q", type: protocol === "graphql-ws" ? "start" : "subscribe", payload: { query: "{ sleepy { id } }" } });
    await within(async () => (await running()) === 1, 5000, "the query never started");
    end(socket);
    expect(await within(async () => (await running()) === 0, 1000, "the statement outlived its operation")).toBeLessThan(1000);
    socket.close();
  });
});
