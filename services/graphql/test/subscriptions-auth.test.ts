/**
 * connection_init authenticated by every auth mode, against real HTTP servers on 127.0.0.1: an
 * auth webhook (GET mode, as configured by default), a JWT secret whose keys come from a
 * `jwk_url`, and a list of JWT secrets (HASURA_GRAPHQL_JWT_SECRETS). The headers of
 * connection_init's payload are what the mode sees; an accepted socket serves the session's
 * rows (role `user` reads its own row of `users`), a refused one is closed with 4403 (the legacy
 * protocol sends `connection_error` with the engine's message first), and a socket whose
 * credentials expire (the webhook answer's `Cache-Control: max-age`) is closed with 4403 then.
 * The webhook is asked once, at connection_init, not again for each operation, as Hasura does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeReason } from "../src/http/websocket/legacy.js";
import { HS_SECRET, hasuraClaims, hsKey, NAMESPACE, type Signer, sign, signer } from "./support/auth.js";
import { type BoundsSetup, openBoundsService } from "./support/bounds.js";
import { testBackends } from "./support/db.js";
import { type LocalServer, sendJson, startLocalServer } from "./support/local-http.js";
import { Answers, legacyClient, RawSocket, socketUrl, transportClient } from "./support/ws.js";

const OTHER_HS_SECRET = "another-hmac-secret-that-is-32-bytes-or-more";
/** What role `user` as user 7 sees of `users` (the permission's filter is `id = X-Hasura-User-Id`). */
const USER_7_ROWS = { data: { users: [{ id: 7 }] } };
const SUBSCRIPTION = "subscription { users { id } }";
const EXPIRED = { code: 4403, reason: "the session's credentials expired" };
const FORBIDDEN = { code: 4403, reason: "Forbidden" };

/** `pending`, or a failure naming `what` after `ms`: no wait of this file can hang. */
async function within<T>(pending: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A socket speaking `protocol` (the legacy one when undefined), opened. */
async function open(url: string, protocol?: string): Promise<RawSocket> {
  const socket = new RawSocket(url, protocol);
  await within(socket.opened(), 5000, "the socket did not open");
  return socket;
}

/** Sends connection_init with `payload` over graphql-transport-ws and waits for the ack; the time it came. */
async function initialised(socket: RawSocket, payload: unknown): Promise<number> {
  socket.send({ type: "connection_init", payload });
  expect(await socket.next((f) => f.type === "connection_ack" || f.type === "connection_error")).toEqual({ type: "connection_ack" });
  return Date.now();
}

/** Subscribes `id` to SUBSCRIPTION over graphql-transport-ws and returns its first answer. */
async function firstAnswer(socket: RawSocket, id = "s"): Promise<unknown> {
  socket.send({ id, type: "subscribe", payload: { query: SUBSCRIPTION } });
  return socket.next((f) => f.id === id);
}

/** The service on `backend` configured by `env`, listening on 127.0.0.1; its WebSocket URL. */
async function listening(backend: (typeof testBackends)[number], env: Record<string, string>) {
  const setup = await openBoundsService(backend, { HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "100", ...env });
  const url = socketUrl(await setup.service.app.listen({ host: "127.0.0.1", port: 0 }));
  return { setup, url };
}

/**
 * A refused connection_init: graphql-transport-ws is closed with 4403; the legacy protocol gets
 * `connection_error` carrying `message`, then 4400 with the message in the reason, as Hasura closes it.
 */
async function expectRefused(url: string, headers: Record<string, string>, message: string): Promise<void> {
  const modern = await open(url, "graphql-transport-ws");
  modern.send({ type: "connection_init", payload: { headers } });
  expect(await within(modern.closed, 5000, "graphql-transport-ws: the refused socket was not closed")).toEqual(FORBIDDEN);
  expect(modern.count("connection_ack")).toBe(0);

  const legacy = await open(url, "graphql-ws");
  legacy.send({ type: "connection_init", payload: { headers } });
  expect(await legacy.next()).toEqual({ type: "connection_error", payload: message });
  expect(await within(legacy.closed, 5000, "graphql-ws: the refused socket was not closed")).toEqual({
    code: 4400,
    reason: closeReason(`Connection initialization failed: ${message}`),
  });
  expect(legacy.count("connection_ack")).toBe(0);
}

describe.each(testBackends)("connection_init through an auth webhook (%s)", (backend) => {
  let webhook: LocalServer;
  let setup: BoundsSetup;
  let url: string;
  beforeAll(async () => {
    // The session variables and the expiry are keys of the JSON answer, where Hasura reads them.
    webhook = await startLocalServer((req, res) => {
      if (req.headers.authorization === "Bearer user-7")
        return sendJson(res, 200, { "X-Hasura-Role": "user", "X-Hasura-User-Id": "7", "Cache-Control": "max-age=2" });
      sendJson(res, 401, { message: "who are you" });
    });
    // Webhook mode needs the admin secret, which openBoundsService sets.
    ({ setup, url } = await listening(backend, { HASURA_GRAPHQL_AUTH_HOOK: `${webhook.url}/auth` }));
  }, 60_000);
  afterAll(async () => {
    await setup?.close();
    await webhook?.close();
  });

  it("asks the webhook with connection_init's headers, serves the session, and closes when its max-age runs out", async () => {
    const before = webhook.requests.length;
    const socket = await open(url, "graphql-transport-ws");
    const ackedAt = await initialised(socket, { headers: { Authorization: "Bearer user-7", "X-Request-Id": "ws-webhook" } });
    expect(await firstAnswer(socket)).toEqual({ id: "s", type: "next", payload: USER_7_ROWS });
    // A second operation on the socket uses the session of connection_init: no second call.
    socket.send({ id: "q", type: "subscribe", payload: { query: "query { users_by_pk(id: 8) { id } }" } });
    expect(await socket.next((f) => f.id === "q")).toEqual({ id: "q", type: "next", payload: { data: { users_by_pk: null } } });

    const asked = webhook.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.method).toBe("GET");
    expect(asked[0]?.url).toBe("/auth");
    expect(asked[0]?.headers).toMatchObject({ authorization: "Bearer user-7", "x-request-id": "ws-webhook" });

    expect(await within(socket.closed, 5000, "the socket outlived its credentials")).toEqual(EXPIRED);
    const after = Date.now() - ackedAt;
    expect(after).toBeGreaterThanOrEqual(1000);
    expect(after).toBeLessThanOrEqual(4000);
  });

  it("takes the headers from the payload's own keys too (no `headers` object)", async () => {
    const before = webhook.requests.length;
    const socket = await open(url, "graphql-transport-ws");
    await initialised(socket, { Authorization: "Bearer user-7", "X-Request-Id": "top-level" });
    expect(await firstAnswer(socket)).toEqual({ id: "s", type: "next", payload: USER_7_ROWS });
    expect(webhook.requests.slice(before).map((r) => r.headers)).toMatchObject([
      { authorization: "Bearer user-7", "x-request-id": "top-level" },
    ]);
    socket.close();
    await within(socket.closed, 5000, "the socket did not close");
  });

  it("refuses connection_init that the webhook answers 401", async () => {
    const before = webhook.requests.length;
    await expectRefused(url, { Authorization: "Bearer someone-else" }, "Authentication hook unauthorized this request");
    const asked = webhook.requests.slice(before);
    expect(asked).toHaveLength(2);
    for (const request of asked) expect(request.headers.authorization).toBe("Bearer someone-else");
  });
});

describe.each(testBackends)("connection_init through a JWT secret's jwk_url (%s)", (backend) => {
  let jwks: LocalServer;
  let published: Signer;
  let stranger: Signer;
  let setup: BoundsSetup;
  let url: string;
  const token = (key: Signer) =>
    sign({ [NAMESPACE]: hasuraClaims({ "x-hasura-user-id": "7" }) }, key.privateKey, "RS256", { kid: key.kid });
  beforeAll(async () => {
    [published, stranger] = await Promise.all([signer("ws-published"), signer("ws-unknown")]);
    jwks = await startLocalServer((req, res) => {
      if (req.url === "/jwks") sendJson(res, 200, { keys: [published.jwk] }, { "cache-control": "max-age=600" });
      else sendJson(res, 404, {});
    });
    ({ setup, url } = await listening(backend, { HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({ jwk_url: `${jwks.url}/jwks` }) }));
  }, 60_000);
  afterAll(async () => {
    await setup?.close();
    await jwks?.close();
  });

  it("accepts a token signed by the published key (graphql-ws's client)", async () => {
    const client = transportClient(url, { Authorization: `Bearer ${await token(published)}` });
    try {
      const live = new Answers();
      const stop = client.subscribe({ query: SUBSCRIPTION }, live.sink);
      await live.next(1);
      expect(live.values[0]).toEqual(USER_7_ROWS);
      expect(live.errors).toEqual([]);
      stop();
    } finally {
      await client.dispose();
    }
    // The key came from the local server.
    expect(jwks.requests.filter((r) => r.url === "/jwks").length).toBeGreaterThanOrEqual(1);
  });

  it("refuses a token signed by another key under an unknown kid", async () => {
    await expectRefused(url, { Authorization: `Bearer ${await token(stranger)}` }, "Could not verify JWT: JWSError NoUsableKeys");
  });
});

describe.each(testBackends)("connection_init through several JWT secrets (%s)", (backend) => {
  let setup: BoundsSetup;
  let url: string;
  // The secrets are told apart by issuer: a token without one would match both (an ambiguity).
  const token = (iss: string, secret: string) =>
    sign({ iss, [NAMESPACE]: hasuraClaims({ "x-hasura-user-id": "7" }) }, hsKey(secret), "HS256");
  beforeAll(async () => {
    ({ setup, url } = await listening(backend, {
      HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify([
        { type: "HS256", key: HS_SECRET, issuer: "first-issuer" },
        { type: "HS256", key: OTHER_HS_SECRET, issuer: "second-issuer" },
      ]),
    }));
  }, 60_000);
  afterAll(async () => setup?.close());

  it("accepts a token signed with the second secret, over both protocols", async () => {
    const headers = { Authorization: `Bearer ${await token("second-issuer", OTHER_HS_SECRET)}` };
    const socket = await open(url, "graphql-transport-ws");
    await initialised(socket, { headers });
    expect(await firstAnswer(socket)).toEqual({ id: "s", type: "next", payload: USER_7_ROWS });
    socket.close();
    await within(socket.closed, 5000, "the socket did not close");

    const client = legacyClient(url, headers);
    try {
      const live = new Answers();
      const subscription = client
        .request({ query: SUBSCRIPTION })
        .subscribe({ next: live.sink.next, error: live.sink.error, complete: live.sink.complete });
      await live.next(1);
      expect(live.values[0]).toEqual(USER_7_ROWS);
      subscription.unsubscribe();
    } finally {
      client.close();
    }
  });

  it("refuses a token naming the second secret's issuer but signed with the first secret", async () => {
    await expectRefused(
      url,
      { Authorization: `Bearer ${await token("second-issuer", HS_SECRET)}` },
      "Could not verify JWT: JWSError JWSInvalidSignature",
    );
  });
});
