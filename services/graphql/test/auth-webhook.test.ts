import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthConfig } from "../src/engine/auth/config.js";
import { resolveSessionWithExpiry } from "../src/engine/auth/session.js";
import { ADMIN_SECRET, rejects, session } from "./support/auth.js";
import { type LocalServer, type SeenRequest, sendJson, startLocalServer } from "./support/local-http.js";

describe("webhook mode over a real HTTP server", () => {
  let server: LocalServer;
  const hook = (path: string, mode?: string) =>
    createAuthConfig({ adminSecret: ADMIN_SECRET, authHook: `${server.url}${path}`, authHookMode: mode });
  const last = (): SeenRequest => server.requests[server.requests.length - 1] as SeenRequest;

  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      const token =
        req.method === "POST"
          ? (JSON.parse(req.body) as { headers: Record<string, string> }).headers.authorization
          : req.headers.authorization;
      if (req.url === "/crash") return sendJson(res, 500, { message: "boom" });
      if (req.url === "/garbage") return res.writeHead(200, { "content-type": "text/plain" }).end("<html>");
      if (req.url === "/no-role") return sendJson(res, 200, { "X-Hasura-User-Id": "1" });
      if (token !== "Bearer good") return sendJson(res, 401, { message: "who are you" });
      sendJson(res, 200, {
        "X-Hasura-Role": "user",
        "X-Hasura-User-Id": "42",
        "X-Hasura-Org-Ids": ["1", "2"],
        "Cache-Control": "max-age=600",
        Other: "ignored",
      });
    });
  });
  afterAll(() => server?.close());

  it("GET forwards the client's headers, minus transport ones, and builds the session from the answer", async () => {
    const headers = {
      authorization: "Bearer good",
      "x-request-id": "r1",
      "content-length": "12",
      host: "example.com",
      "x-hasura-role": "admin",
    };
    const resolved = await resolveSessionWithExpiry({ headers }, hook("/auth"));
    expect(resolved.session).toEqual({
      role: "user",
      variables: { "x-hasura-role": "user", "x-hasura-user-id": "42", "x-hasura-org-ids": "{1,2}" },
      isAdmin: false,
      useBackendOnly: false,
    });
    const expiresIn = (resolved.expiresAt?.getTime() ?? 0) - Date.now();
    expect(expiresIn).toBeGreaterThan(590_000);
    expect(expiresIn).toBeLessThanOrEqual(600_000);
    const seen = last();
    expect(seen.method).toBe("GET");
    expect(seen.headers).toMatchObject({ authorization: "Bearer good", "x-request-id": "r1", "x-hasura-role": "admin" });
    expect(seen.headers.host).toBe(server.url.replace("http://", ""));
    expect(seen.headers["content-length"]).toBeUndefined();
  });

  it("POST sends {headers, request}", async () => {
    const body = { query: "query { a }", variables: { x: 1 }, operationName: null };
    const s = await session({ authorization: "Bearer good", "x-custom": "c" }, hook("/auth", "post"), body);
    expect(s.role).toBe("user");
    const seen = last();
    expect(seen.method).toBe("POST");
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen.body)).toEqual({ headers: { authorization: "Bearer good", "x-custom": "c" }, request: body });
  });

  it("answers 401 from the hook with access-denied", async () => {
    await rejects(
      session({ authorization: "Bearer bad" }, hook("/auth")),
      "access-denied",
      "Authentication hook unauthorized this request",
      401,
    );
    await rejects(session({}, hook("/auth", "POST")), "access-denied", "Authentication hook unauthorized this request", 401);
  });

  it("treats other answers as unexpected failures", async () => {
    await rejects(session({}, hook("/crash")), "unexpected", "Invalid response from authorization hook", 500);
    const garbage = await rejects(session({}, hook("/garbage")), "unexpected", expect.any(String) as unknown as string, 500);
    expect(garbage.message).toMatch(/^Invalid response from authorization hook: /);
    await rejects(session({}, hook("/no-role")), "invalid-params", "x-hasura-role not found in session variables");
  });

  it("fails with unexpected when the hook cannot be reached", async () => {
    const down = createAuthConfig({ adminSecret: ADMIN_SECRET, authHook: "http://127.0.0.1:1/auth" });
    await rejects(session({}, down), "unexpected", "webhook authentication request failed", 500);
  });

  it("is skipped when the admin secret is sent", async () => {
    const before = server.requests.length;
    expect((await session({ "x-hasura-admin-secret": ADMIN_SECRET }, hook("/auth"))).role).toBe("admin");
    expect(server.requests.length).toBe(before);
  });
});
