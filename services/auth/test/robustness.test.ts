/**
 * Malformed input never gets a 5xx: every endpoint is sent odd values for every field it reads
 * (wrong types, empty, huge, NUL, control and non-ASCII characters, bad ids and durations), odd
 * query strings and odd redirect targets; each answer must be a 2xx-4xx in the documented shape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken } from "./support/admin.js";
import { backends, email, openTestDatabase, readJson, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

const VALUES: unknown[] = [
  null,
  -1,
  1e308,
  true,
  "",
  "a".repeat(3000),
  [1],
  { a: 1 },
  "\u0000",
  "line\nbreak",
  "😀",
  "not-a-uuid",
  "-1h",
  "9999999999h",
  "$argon2id$v=19$m=1,t=1,p=1$YWJj$YWJj",
];

const FIELDS = [
  "email",
  "phone",
  "password",
  "data",
  "refresh_token",
  "token",
  "token_hash",
  "type",
  "redirect_to",
  "ban_duration",
  "user_metadata",
  "app_metadata",
  "role",
  "email_confirm",
  "password_hash",
  "id",
  "nonce",
  "new_email",
  "channel",
  "code_challenge",
  "should_soft_delete",
];

type Route = [method: string, path: string, auth: "none" | "user" | "admin"];

describe.each(backends)("robustness on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: string;
  let user: string;
  let userId: string;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, { AUTH_MAILER_AUTOCONFIRM: "false" });
    admin = await adminToken();
    const auto = await server.client().signInAnonymously();
    user = auto.data.session?.access_token as string;
    userId = auto.data.user?.id as string;
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const send = (method: string, path: string, auth: Route[2], body?: string) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (auth !== "none") headers.authorization = `Bearer ${auth === "admin" ? admin : user}`;
    return server.request(path, { method, headers, body, redirect: "manual" });
  };

  it("answers odd values in every field of every body with a client error or success, never a 5xx", async () => {
    const routes: Route[] = [
      ["POST", "/signup", "none"],
      ["POST", "/token?grant_type=password", "none"],
      ["POST", "/token?grant_type=refresh_token", "none"],
      ["POST", "/verify", "none"],
      ["PUT", "/user", "user"],
      ["POST", "/invite", "admin"],
      ["POST", "/admin/generate_link", "admin"],
      ["POST", "/admin/users", "admin"],
      ["PUT", `/admin/users/${userId}`, "admin"],
      ["DELETE", "/admin/users/00000000-0000-0000-0000-000000000001", "admin"],
    ];
    const failures: string[] = [];
    for (const [method, path, auth] of routes) {
      const bodies = ["not json", "[]", "null"];
      for (const field of FIELDS)
        for (const value of VALUES)
          bodies.push(JSON.stringify({ email: email("odd"), password: "secret-1", type: "signup", [field]: value }));
      for (const body of bodies) {
        const response = await send(method, path, auth, body);
        const text = await response.text();
        if (response.status >= 500) failures.push(`${response.status} ${method} ${path} ${body.slice(0, 80)} => ${text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    // Thousands of requests one after another (sign-ups hash passwords): 15-25 s on a busy 2-core machine.
  }, 90_000);

  it("answers odd query strings and paths with a client error, never a 5xx", async () => {
    const routes: Route[] = [
      ["GET", "/admin/users?page=-1&per_page=abc", "admin"],
      ["GET", "/admin/users?page=99999999999999999999&per_page=1e9", "admin"],
      ["GET", "/admin/users?sort=x%20y&filter=%25%27", "admin"],
      ["GET", "/admin/users?filter=%00", "admin"],
      ["GET", "/admin/users/%00", "admin"],
      ["GET", "/verify", "none"],
      ["GET", "/verify?type=signup&token=%00", "none"],
      ["GET", "/verify?type=%F0%9F%98%80&token=abc", "none"],
      ["POST", "/logout?scope=%00", "user"],
      ["POST", "/token?grant_type=%00", "none"],
    ];
    for (const [method, path, auth] of routes) {
      const response = await send(method, path, auth);
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
      if (response.status !== 303) expect(await readJson(response), `${method} ${path}`).toHaveProperty("code");
    }
    const nul = await send("GET", "/admin/users?filter=%00", "admin");
    expect(await readJson(nul)).toMatchObject({ code: 400, error_code: "validation_failed" });
  });

  it("refuses a role or an audience longer than its column", async () => {
    const role = await send("POST", "/admin/users", "admin", JSON.stringify({ email: email("role"), role: "r".repeat(256) }));
    expect(role.status).toBe(400);
    expect(await readJson(role)).toMatchObject({ error_code: "validation_failed", msg: "role cannot be longer than 255 characters" });
    const audience = await server.request("/signup", {
      method: "POST",
      headers: { "x-jwt-aud": "a".repeat(256) },
      body: JSON.stringify({ email: email("aud"), password: "secret-1" }),
    });
    expect(audience.status).toBe(400);
    expect(await readJson(audience)).toMatchObject({ msg: "X-JWT-AUD cannot be longer than 255 characters" });
  });

  it("refuses NUL characters in a body as bad JSON", async () => {
    const response = await send(
      "POST",
      "/token?grant_type=password",
      "none",
      JSON.stringify({ email: "a\u0000@example.com", password: "x" }),
    );
    expect(response.status).toBe(400);
    expect(await readJson(response)).toMatchObject({ error_code: "bad_json", msg: expect.stringMatching(/NUL/) });
  });

  it("redirects GET /verify to targets with control or non-ASCII characters, percent-encoded", async () => {
    const target = "http://localhost:3000/a%0A%0Db%C3%A9%F0%9F%98%80%20c";
    const response = await send("GET", `/verify?type=signup&token=abc&redirect_to=${target}`, "none");
    expect(response.status).toBe(303);
    const location = response.headers.get("location") as string;
    expect(location.startsWith("http://localhost:3000/a%0A%0Db%C3%A9%F0%9F%98%80%20c#")).toBe(true);
    expect(location).toContain("error_code=otp_expired");
  });
});
