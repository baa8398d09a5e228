/** The wire around the endpoints: error shapes, bodies, CORS, request ids, rate limits, failures. */
import { randomUUID } from "node:crypto";
import { sql } from "@platform/core";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, email, openTestDatabase, readJson, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

const REDIS_URL = process.env.TEST_REDIS_URL?.trim() || "redis://127.0.0.1:6379";

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const modern = { "x-supabase-api-version": "2024-01-01" };

describe.each(backends)("http on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let limited: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, { AUTH_REQUEST_ID_HEADER: "X-Trace-Id" });
    limited = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "limited",
      AUTH_RATE_LIMIT_HEADER: "X-Real-IP",
      AUTH_RATE_LIMIT_TOKEN_REFRESH: "3",
    });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), limited?.close()]);
    await database?.dispose();
  });

  const post = (target: TestServer, path: string, body: string, headers: Record<string, string> = {}) =>
    target.request(path, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

  it("answers the legacy shape without X-Supabase-Api-Version and the 2024-01-01 shape with it (echoed)", async () => {
    const body = JSON.stringify({ email: email(), password: "wrong-pass" });
    const legacy = await post(server, "/token?grant_type=password", body);
    expect(legacy.status).toBe(400);
    expect(legacy.headers.get("x-supabase-api-version")).toBeNull();
    expect(legacy.headers.get("x-sb-error-code")).toBe("invalid_credentials");
    expect(await legacy.json()).toEqual({ code: 400, error_code: "invalid_credentials", msg: "Invalid login credentials" });
    const current = await post(server, "/token?grant_type=password", body, { "x-supabase-api-version": "2025-06-01" });
    expect(current.headers.get("x-supabase-api-version")).toBe("2024-01-01");
    expect(await current.json()).toEqual({ code: "invalid_credentials", message: "Invalid login credentials" });
    const older = await post(server, "/token?grant_type=password", body, { "x-supabase-api-version": "2023-05-01" });
    expect(await older.json()).toMatchObject({ code: 400 });
  });

  it("answers bad JSON, wrong field types and non-object bodies with 400 bad_json", async () => {
    for (const body of ["{not json", '{"email": 42, "password": "x"}', "[1,2]", '"text"']) {
      const response = await post(server, "/signup", body, modern);
      expect(response.status).toBe(400);
      const json = await readJson(response);
      expect(json.code).toBe("bad_json");
      expect(json.message).toMatch(/^Could not parse request body as JSON/);
    }
    const legacy = await post(server, "/signup", "{oops");
    expect(await legacy.json()).toMatchObject({ code: 400, error_code: "bad_json" });
  });

  it("reads JSON whatever the content type, and an empty body as {}", async () => {
    const address = email();
    const response = await server.request("/signup", {
      method: "POST",
      body: JSON.stringify({ email: address, password: "secret-1" }),
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(200);
    const { access_token } = await readJson<{ access_token: string }>(response);
    const logout = await server.request("/logout", {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
    });
    expect(logout.status).toBe(204);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const response = await post(server, "/signup", JSON.stringify({ email: email(), password: "x".repeat(1024 * 1024) }), modern);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ code: "request_entity_too_large", message: "Request body too large (max 1048576 bytes)" });
  });

  it("answers unknown paths with a 404 in the error shape", async () => {
    const response = await server.request("/nowhere", { headers: modern });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: "not_found", message: "Not Found" });
  });

  it("answers CORS preflights and marks responses for any origin", async () => {
    const preflight = await server.request("/token", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,apikey",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(preflight.headers.get("access-control-allow-credentials")).toBe("true");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("authorization,apikey");
    const settings = await server.request("/settings", { headers: { origin: "https://app.example" } });
    expect(settings.headers.get("access-control-expose-headers")).toContain("X-Supabase-Api-Version");
  });

  it("takes the request id from REQUEST_ID_HEADER", async () => {
    const response = await server.request("/health", { headers: { "x-trace-id": "trace-123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
  });

  it("rate-limits /token per RATE_LIMIT_HEADER key: a burst of 30, then 429 over_request_rate_limit", async () => {
    const body = JSON.stringify({ refresh_token: "not-a-token" });
    const ip = `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    // RATE_LIMIT_TOKEN_REFRESH=3 earns one back per 100 s; the bucket holds 30 whatever the rate (GoTrue).
    for (let i = 0; i < 31; i++) statuses.push((await post(limited, "/token?grant_type=refresh_token", body, { "x-real-ip": ip })).status);
    expect(statuses).toEqual([...Array(30).fill(400), 429]);
    const blocked = await post(limited, "/token?grant_type=refresh_token", body, { "x-real-ip": ip, ...modern });
    expect(await blocked.json()).toEqual({ code: "over_request_rate_limit", message: "Request rate limit reached" });
    expect((await post(limited, "/token?grant_type=password", body, { "x-real-ip": "10.9.9.9" })).status).toBe(400);
    // No key header, no limit (as GoTrue).
    expect((await post(limited, "/token?grant_type=password", body)).status).toBe(400);
  });

  it("shares rate-limit counters between instances through Redis", async (context) => {
    if (!(await redisReachable())) return context.skip();
    const env = {
      AUTH_DB_NAMESPACE: "shared",
      AUTH_RATE_LIMIT_HEADER: "X-Real-IP",
      AUTH_RATE_LIMIT_TOKEN_REFRESH: "2",
      AUTH_REDIS_URL: REDIS_URL,
    };
    const [a, b] = [await startTestServer(database.db, env), await startTestServer(database.db, env)];
    try {
      const body = JSON.stringify({ refresh_token: "not-a-token" });
      const key = `redis-${randomUUID()}`;
      const refresh = (target: TestServer) => post(target, "/token?grant_type=refresh_token", body, { "x-real-ip": key });
      // One bucket of 30 for the key, drawn from by both instances.
      for (let i = 0; i < 15; i++) {
        expect((await refresh(a)).status).toBe(400);
        expect((await refresh(b)).status).toBe(400);
      }
      expect((await refresh(a)).status).toBe(429);
      expect((await refresh(b)).status).toBe(429);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("answers an unexpected failure with a generic 500 carrying an id, never details", async () => {
    const broken = await startTestServer(database.db, { AUTH_DB_NAMESPACE: "broken" });
    await broken.db.query(sql`DROP TABLE ${broken.table("users")} CASCADE`);
    const response = await post(broken, "/token?grant_type=password", JSON.stringify({ email: email(), password: "secret-1" }));
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({
      code: 500,
      error_code: "unexpected_failure",
      msg: "Unexpected failure, please check server logs for more information",
      error_id: expect.any(String),
    });
    expect(response.headers.get("x-sb-error-code")).toBe("unexpected_failure");
    expect(JSON.stringify(body)).not.toMatch(/relation|users|stack/);
    await broken.close();
  });
});
