/**
 * The gateway over real HTTP, in front of real HTTP servers standing in for the services:
 * routing and prefix stripping, Supabase's key-auth and Authorization rules, CORS, forwarded
 * headers, and what a client sees when a service is down or slow.
 */
import { ConfigError, createLogger } from "@platform/core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { readGatewayConfig } from "../src/config.js";
import { createGateway } from "../src/server.js";
import { startUpstream, type Upstream } from "./support/upstream.js";

const KEYS = { anon: "anon.jwt.token", service: "service.jwt.token", publishable: "sb_publishable_abc123", secret: "sb_secret_xyz789" };

let auth: Upstream;
let graphql: Upstream;
let catalog: Upstream;
let app: FastifyInstance;
let base: string;

async function gatewayOver(env: Record<string, string>): Promise<{ app: FastifyInstance; base: string }> {
  const config = readGatewayConfig({ GATEWAY_HOST: "127.0.0.1", GATEWAY_PORT: "0", ...env });
  const instance = createGateway(config, createLogger({ level: "silent" }));
  return { app: instance, base: await instance.listen({ host: "127.0.0.1", port: 0 }) };
}

beforeAll(async () => {
  [auth, graphql, catalog] = await Promise.all([startUpstream("auth"), startUpstream("graphql"), startUpstream("catalog")]);
  ({ app, base } = await gatewayOver({
    GATEWAY_AUTH_URL: auth.url,
    GATEWAY_GRAPHQL_URL: graphql.url,
    GATEWAY_CATALOG_URL: catalog.url,
    ANON_KEY: KEYS.anon,
    SERVICE_ROLE_KEY: KEYS.service,
    SUPABASE_PUBLISHABLE_KEY: KEYS.publishable,
    SUPABASE_SECRET_KEY: KEYS.secret,
  }));
});

afterAll(async () => {
  await app?.close();
  await Promise.all([auth?.close(), graphql?.close(), catalog?.close()]);
});

beforeEach(() => {
  for (const upstream of [auth, graphql, catalog]) {
    upstream.seen.length = 0;
    upstream.answer((request) => ({ body: JSON.stringify({ url: request.url }) }));
  }
});

const last = (upstream: Upstream) => upstream.seen.at(-1);

describe("/auth/v1", () => {
  it("needs an API key, answering Kong's key-auth errors without reaching auth", async () => {
    const missing = await fetch(`${base}/auth/v1/settings`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ message: "No API key found in request" });
    expect(missing.headers.get("www-authenticate")).toMatch(/^Key realm=/);
    const wrong = await fetch(`${base}/auth/v1/settings`, { headers: { apikey: "not-a-key" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ message: "Invalid authentication credentials" });
    expect(auth.seen).toHaveLength(0);
  });

  it("strips the prefix, keeps the query and the body, and sends the key's token as Authorization", async () => {
    const response = await fetch(`${base}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { apikey: KEYS.anon, "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", password: "secret" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ url: "/token?grant_type=password" });
    const seen = last(auth);
    expect(seen?.method).toBe("POST");
    expect(JSON.parse(seen?.body.toString() ?? "")).toEqual({ email: "a@example.com", password: "secret" });
    expect(seen?.headers.authorization).toBe(`Bearer ${KEYS.anon}`);
    // Kong's key-auth on auth keeps the credential (hide_credentials: false).
    expect(seen?.headers.apikey).toBe(KEYS.anon);
    expect(seen?.headers["x-forwarded-prefix"]).toBe("/auth/v1");
  });

  it("keeps the caller's own bearer token, and replaces an opaque key with the token it stands for", async () => {
    await fetch(`${base}/auth/v1/user`, { headers: { apikey: KEYS.anon, authorization: "Bearer user.session.token" } });
    expect(last(auth)?.headers.authorization).toBe("Bearer user.session.token");
    await fetch(`${base}/auth/v1/user`, { headers: { apikey: KEYS.publishable, authorization: `Bearer ${KEYS.publishable}` } });
    expect(last(auth)?.headers.authorization).toBe(`Bearer ${KEYS.anon}`);
    await fetch(`${base}/auth/v1/admin/users`, { headers: { apikey: KEYS.secret } });
    expect(last(auth)?.headers.authorization).toBe(`Bearer ${KEYS.service}`);
    await fetch(`${base}/auth/v1/admin/users`, { headers: { apikey: KEYS.service } });
    expect(last(auth)?.headers.authorization).toBe(`Bearer ${KEYS.service}`);
  });

  it("reads the key from the apikey query parameter too", async () => {
    const response = await fetch(`${base}/auth/v1/settings?apikey=${KEYS.anon}`);
    expect(response.status).toBe(200);
    expect(last(auth)?.url).toBe(`/settings?apikey=${KEYS.anon}`);
  });

  it("leaves verify, callback, authorize and the public keys open, untouched", async () => {
    for (const path of ["/verify?token=abc&type=signup", "/callback?code=x", "/authorize?provider=github", "/.well-known/jwks.json"]) {
      const response = await fetch(`${base}/auth/v1${path}`, { redirect: "manual" });
      expect(response.status, path).toBe(200);
      expect(last(auth)?.url).toBe(path);
      expect(last(auth)?.headers.authorization).toBeUndefined();
    }
    expect((await fetch(`${base}/auth/v1/verifyx`)).status).toBe(401);
  });

  it("passes redirects and statuses through unchanged", async () => {
    auth.answer({ status: 303, headers: { location: "http://localhost:3000/#access_token=x" }, body: "" });
    const response = await fetch(`${base}/auth/v1/verify?token=t&type=signup`, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("http://localhost:3000/#access_token=x");
    auth.answer({ status: 422, body: JSON.stringify({ code: 422, error_code: "weak_password", msg: "weak" }) });
    const refused = await fetch(`${base}/auth/v1/signup`, { method: "POST", headers: { apikey: KEYS.anon } });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({ code: 422, error_code: "weak_password", msg: "weak" });
  });
});

describe("GraphQL", () => {
  it("serves Supabase's /graphql/v1 from the engine's /v1/graphql, behind key-auth", async () => {
    expect((await fetch(`${base}/graphql/v1`, { method: "POST" })).status).toBe(401);
    const response = await fetch(`${base}/graphql/v1`, {
      method: "POST",
      headers: { apikey: KEYS.anon, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(await response.json()).toEqual({ url: "/v1/graphql" });
    expect(last(graphql)?.headers.authorization).toBe(`Bearer ${KEYS.anon}`);
  });

  /** Opens a WebSocket through the gateway; resolves with it open, or with the HTTP status it was refused with. */
  function openSocket(path: string, protocol: string | undefined, headers: Record<string, string> = {}) {
    const socket = new WebSocket(`${base.replace(/^http/, "ws")}${path}`, protocol ? [protocol] : [], { headers });
    return new Promise<{ socket: WebSocket; refused?: number }>((resolve, reject) => {
      socket.once("open", () => resolve({ socket }));
      socket.once("unexpected-response", (_request, response) => resolve({ socket, refused: response.statusCode }));
      socket.once("error", reject);
    });
  }

  it("proxies WebSocket upgrades of /graphql/v1 (behind key-auth) and /v1/graphql, the subprotocol and the credentials with them", async () => {
    const refused = await openSocket("/graphql/v1", "graphql-transport-ws");
    expect(refused.refused).toBe(401);
    const keyed = await openSocket(`/graphql/v1?apikey=${KEYS.publishable}`, "graphql-transport-ws", { "x-forwarded-for": "10.0.0.9" });
    expect(keyed.socket.protocol).toBe("graphql-transport-ws");
    const echoed = new Promise((resolve) => keyed.socket.once("message", (data) => resolve(String(data))));
    keyed.socket.send("hello");
    expect(await echoed).toBe("echo: hello");
    const seen = graphql.sockets.at(-1);
    expect(seen?.url).toBe(`/v1/graphql?apikey=${KEYS.publishable}`);
    expect(seen?.protocol).toBe("graphql-transport-ws");
    // The opaque key stands for the anon JWT upstream, as for HTTP; the client's address goes with it.
    expect(seen?.headers.authorization).toBe(`Bearer ${KEYS.anon}`);
    expect(seen?.headers["x-real-ip"]).toBe("127.0.0.1");
    expect(seen?.headers["x-forwarded-for"]).toBe("10.0.0.9, 127.0.0.1");
    keyed.socket.close();
    const before = graphql.sockets.length;
    const hasura = await openSocket("/v1/graphql", undefined, { "x-hasura-admin-secret": "s" });
    expect(hasura.refused).toBeUndefined();
    // The gateway opens its own socket to the service once the client's is open.
    for (let i = 0; i < 100 && graphql.sockets.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(graphql.sockets.at(-1)).toMatchObject({ url: "/v1/graphql", protocol: "", headers: { "x-hasura-admin-secret": "s" } });
    hasura.socket.close();
  });

  it("serves Hasura's own paths unchanged, without a key (Hasura clients bring their own credentials)", async () => {
    for (const path of [
      "/v1/graphql",
      "/v1/metadata",
      "/v2/query",
      "/v1/query",
      "/v1alpha1/graphql",
      "/v1/version",
      "/healthz",
      "/console",
    ]) {
      const response = await fetch(`${base}${path}`, { headers: { "x-hasura-admin-secret": "s" } });
      expect(await response.json(), path).toEqual({ url: path });
      expect(last(graphql)?.headers["x-hasura-admin-secret"]).toBe("s");
      expect(last(graphql)?.headers.authorization).toBeUndefined();
    }
    await fetch(`${base}/console/assets/graphiql.min.js`);
    expect(last(graphql)?.url).toBe("/console/assets/graphiql.min.js");
  });

  it("opens the console at the root URL", async () => {
    const response = await fetch(`${base}/`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/console");
  });
});

describe("/catalog", () => {
  it("strips the prefix and says so in X-Forwarded-Prefix; relative redirects stay under it", async () => {
    const response = await fetch(`${base}/catalog/products?limit=2&q=milk`);
    expect(await response.json()).toEqual({ url: "/products?limit=2&q=milk" });
    expect(last(catalog)?.headers["x-forwarded-prefix"]).toBe("/catalog");
    catalog.answer({ status: 307, headers: { location: "/products" }, body: "" });
    const redirect = await fetch(`${base}/catalog/products/`, { redirect: "manual" });
    expect(redirect.headers.get("location")).toBe("/catalog/products");
  });

  it("turns a service's absolute redirect to itself into one to the gateway, and leaves others alone", async () => {
    catalog.answer((request) => ({ status: 307, headers: { location: `http://${request.headers.host}/products?limit=2` }, body: "" }));
    const own = await fetch(`${base}/catalog/products/?limit=2`, { redirect: "manual" });
    expect(own.headers.get("location")).toBe(`${base}/catalog/products?limit=2`);
    catalog.answer({ status: 307, headers: { location: `${catalog.url}/products` }, body: "" });
    expect((await fetch(`${base}/catalog/products/`, { redirect: "manual" })).headers.get("location")).toBe(`${base}/catalog/products`);
    auth.answer({ status: 303, headers: { location: "https://app.example.com/welcome#access_token=x" }, body: "" });
    const away = await fetch(`${base}/auth/v1/verify?token=t&type=signup`, { redirect: "manual" });
    expect(away.headers.get("location")).toBe("https://app.example.com/welcome#access_token=x");
  });
});

describe("every route", () => {
  it("forwards the request id, the client address and the original host", async () => {
    const response = await fetch(`${base}/catalog/healthz`, { headers: { "x-request-id": "req-123" } });
    expect(response.headers.get("x-request-id")).toBe("req-123");
    const seen = last(catalog);
    expect(seen?.headers["x-request-id"]).toBe("req-123");
    expect(seen?.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen?.headers["x-real-ip"]).toBe("127.0.0.1");
    expect(seen?.headers["x-forwarded-proto"]).toBe("http");
    // A client cannot choose the address the services see: X-Real-IP is the gateway's peer.
    await fetch(`${base}/catalog/healthz`, { headers: { "x-real-ip": "10.9.9.9", "x-forwarded-for": "10.8.8.8" } });
    expect(last(catalog)?.headers["x-real-ip"]).toBe("127.0.0.1");
    expect(last(catalog)?.headers["x-forwarded-for"]).toBe("10.8.8.8, 127.0.0.1");
    expect(seen?.headers["x-forwarded-host"]).toBe(new URL(base).host);
    await fetch(`${base}/catalog/healthz`);
    expect(last(catalog)?.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers Kong's 404 for paths it does not serve", async () => {
    const response = await fetch(`${base}/rest/v1/todos`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "no Route matched with those values" });
  });

  it("answers CORS preflights itself, before key-auth, and replaces the services' own CORS headers", async () => {
    const preflight = await fetch(`${base}/auth/v1/signup`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "apikey, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("apikey, content-type");
    expect(auth.seen).toHaveLength(0);
    auth.answer({ headers: { "access-control-allow-origin": "https://elsewhere.example" }, body: "{}" });
    const actual = await fetch(`${base}/auth/v1/settings`, { headers: { apikey: KEYS.anon, origin: "http://localhost:5173" } });
    expect(actual.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  });

  it("gives CORS headers only to the configured origins when GATEWAY_CORS_ORIGINS is set", async () => {
    const gateway = await gatewayOver({ GATEWAY_CATALOG_URL: catalog.url, GATEWAY_CORS_ORIGINS: "http://localhost:5173" });
    try {
      catalog.answer({ headers: { "access-control-allow-origin": "*" }, body: "{}" });
      const allowed = await fetch(`${gateway.base}/catalog/products`, { headers: { origin: "http://localhost:5173" } });
      expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      const denied = await fetch(`${gateway.base}/catalog/products`, { headers: { origin: "http://evil.example" } });
      expect(denied.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await gateway.app.close();
    }
  });

  it("streams large bodies both ways", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    catalog.answer((request) => ({ body: JSON.stringify({ length: request.body.length, echo: big }) }));
    const response = await fetch(`${base}/catalog/anything`, { method: "POST", headers: { "content-type": "text/plain" }, body: big });
    const body = (await response.json()) as { length: number; echo: string };
    expect(body.length).toBe(big.length);
    expect(body.echo.length).toBe(big.length);
  });
});

describe("when a service is down or slow", () => {
  it("answers 502 with Kong's message when the service cannot be reached, and forwards a 503 once", async () => {
    const dead = await startUpstream("dead");
    await dead.close();
    const gateway = await gatewayOver({ GATEWAY_CATALOG_URL: dead.url, GATEWAY_AUTH_URL: auth.url });
    try {
      const response = await fetch(`${gateway.base}/catalog/products`);
      expect(response.status).toBe(502);
      expect(await response.json()).toEqual({ message: "An invalid response was received from the upstream server" });
      auth.answer({ status: 503, body: JSON.stringify({ msg: "busy" }) });
      const started = Date.now();
      const unavailable = await fetch(`${gateway.base}/auth/v1/health`);
      expect(unavailable.status).toBe(503);
      expect(auth.seen).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await gateway.app.close();
    }
  });

  it("answers 504 when the service takes longer than GATEWAY_UPSTREAM_TIMEOUT_MS", async () => {
    const gateway = await gatewayOver({ GATEWAY_CATALOG_URL: catalog.url, GATEWAY_UPSTREAM_TIMEOUT_MS: "200" });
    try {
      catalog.answer({ delayMs: 1000, body: "{}" });
      const response = await fetch(`${gateway.base}/catalog/products`);
      expect(response.status).toBe(504);
      expect(await response.json()).toEqual({ message: "The upstream server is timing out" });
    } finally {
      await gateway.app.close();
    }
  });

  it("checks no key when none is configured", async () => {
    const gateway = await gatewayOver({ GATEWAY_AUTH_URL: auth.url });
    try {
      expect((await fetch(`${gateway.base}/auth/v1/settings`)).status).toBe(200);
      expect(last(auth)?.headers.authorization).toBeUndefined();
    } finally {
      await gateway.app.close();
    }
  });
});

describe("configuration", () => {
  it("names every problem at once", () => {
    expect(() =>
      readGatewayConfig({
        GATEWAY_PORT: "http",
        GATEWAY_AUTH_URL: "ftp://x",
        GATEWAY_CORS_ORIGINS: "http://a.example/path",
        SUPABASE_PUBLISHABLE_KEY: "pk",
      }),
    ).toThrow(ConfigError);
    try {
      readGatewayConfig({
        GATEWAY_PORT: "http",
        GATEWAY_AUTH_URL: "ftp://x",
        GATEWAY_CORS_ORIGINS: "http://a.example/path",
        SUPABASE_PUBLISHABLE_KEY: "pk",
      });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'GATEWAY_PORT must be an integer, got "http"',
        'GATEWAY_AUTH_URL: must be an http(s) URL, got "ftp://x"',
        "SUPABASE_PUBLISHABLE_KEY: must start with sb_publishable_",
        'GATEWAY_CORS_ORIGINS: "http://a.example/path" is not an origin (scheme://host[:port]) or *',
      ]);
    }
    expect(() => readGatewayConfig({ SUPABASE_PUBLISHABLE_KEY: "sb_publishable_x" })).toThrow(/needs GATEWAY_ANON_KEY/);
  });
});
