/**
 * Captcha protection (supabase/auth internal/api/middleware.go verifyCaptcha) against local
 * stand-ins for hCaptcha's and Turnstile's verify endpoints, which check the method, the content
 * type and the form (secret, response, remoteip) and answer by token: `good` passes, `bad` fails
 * with two error codes, `html` is not JSON, `hang` is never answered.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCaptchaAnswer } from "../src/domain/captcha.js";
import { adminToken } from "./support/admin.js";
import { json, readBody } from "./support/oauth-providers.js";
import { backends, email, openTestDatabase, readJson, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

interface Call {
  path: string;
  form: Record<string, string>;
}

const SECRETS: Record<string, string> = { "/hcaptcha/siteverify": "hc-secret", "/turnstile/v0/siteverify": "ts-secret" };
const MISSING = "captcha protection: request disallowed (no captcha_token found)";
const REFUSED = "captcha protection: request disallowed (invalid-input-response, timeout-or-duplicate)";

async function startVerifier(): Promise<{ url: string; calls: Call[]; server: Server }> {
  const calls: Call[] = [];
  const server = createServer(async (request, response) => {
    const path = request.url ?? "";
    const form = Object.fromEntries(new URLSearchParams(await readBody(request)));
    calls.push({ path, form });
    const wrong = [
      request.method !== "POST" && "method",
      request.headers["content-type"] !== "application/x-www-form-urlencoded" && "content-type",
      (SECRETS[path] === undefined || form.secret !== SECRETS[path]) && "secret",
      form.remoteip !== "127.0.0.1" && "remoteip",
    ].filter(Boolean);
    if (wrong.length > 0) return json(response, 200, { success: false, "error-codes": wrong.map((w) => `stand-in: wrong ${w}`) });
    if (form.response === "hang") return; // never answered
    if (form.response === "html") return response.end("<html>busy</html>");
    if (form.response === "good") return json(response, 200, { success: true, hostname: "localhost" });
    json(response, 200, { success: false, "error-codes": ["invalid-input-response", "timeout-or-duplicate"] });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, server };
}

const post = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.request(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const withToken = (body: Record<string, unknown>, token: string) => ({ ...body, gotrue_meta_security: { captcha_token: token } });

describe.each(backends)("captcha on %s", (backend) => {
  let database: TestDatabase;
  let verifier: Awaited<ReturnType<typeof startVerifier>>;
  let hcaptcha: TestServer;
  let turnstile: TestServer;
  let open: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    verifier = await startVerifier();
    const on = { AUTH_SECURITY_CAPTCHA_ENABLED: "true", AUTH_SECURITY_CAPTCHA_TIMEOUT: "1s" };
    hcaptcha = await startTestServer(database.db, {
      ...on,
      AUTH_SECURITY_CAPTCHA_SECRET: " hc-secret ",
      AUTH_SECURITY_CAPTCHA_VERIFY_URL: `${verifier.url}/hcaptcha/siteverify`,
    });
    turnstile = await startTestServer(database.db, {
      ...on,
      AUTH_DB_NAMESPACE: "turnstile",
      AUTH_SECURITY_CAPTCHA_PROVIDER: "turnstile",
      AUTH_SECURITY_CAPTCHA_SECRET: "ts-secret",
      AUTH_SECURITY_CAPTCHA_VERIFY_URL: `${verifier.url}/turnstile/v0/siteverify`,
    });
    open = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "open",
      AUTH_SECURITY_CAPTCHA_VERIFY_URL: `${verifier.url}/hcaptcha/siteverify`,
    });
  });
  afterAll(async () => {
    await Promise.all([hcaptcha?.close(), turnstile?.close(), open?.close()]);
    verifier?.server.closeAllConnections();
    await new Promise((resolve) => verifier?.server.close(resolve));
    await database?.dispose();
  });

  /** A confirmed user of `server`, signed up past the captcha. */
  async function user(server: TestServer) {
    const address = email("captcha");
    const { error } = await server.client().signUp({ email: address, password: "secret-1", options: { captchaToken: "good" } });
    expect(error).toBeNull();
    return address;
  }

  it("signs up and signs in with a token the provider accepts (auth-js captchaToken), sending GoTrue's form", async () => {
    const address = email("captcha");
    const client = hcaptcha.client();
    const signedUp = await client.signUp({ email: address, password: "secret-1", options: { captchaToken: "  good " } });
    expect(signedUp.error).toBeNull();
    expect(signedUp.data.session).not.toBeNull();
    expect(verifier.calls.at(-1)).toEqual({
      path: "/hcaptcha/siteverify",
      form: { secret: "hc-secret", response: "good", remoteip: "127.0.0.1" },
    });
    const signedIn = await client.signInWithPassword({ email: address, password: "secret-1", options: { captchaToken: "good" } });
    expect(signedIn.error).toBeNull();
    const anonymous = await client.signInAnonymously({ options: { captchaToken: "good" } });
    expect(anonymous.error).toBeNull();
  });

  it("refuses every guarded endpoint without a token, and accepts each with one", async () => {
    const address = await user(hcaptcha);
    const cases: [string, Record<string, unknown>, number][] = [
      ["/signup", { email: email("captcha"), password: "secret-1" }, 200],
      ["/signup", {}, 200],
      ["/recover", { email: address }, 200],
      ["/resend", { type: "signup", email: address }, 200],
      ["/magiclink", { email: email("captcha") }, 200],
      ["/otp", { email: email("captcha") }, 200],
      ["/token?grant_type=password", { email: address, password: "secret-1" }, 200],
      ["/token?grant_type=web3", {}, 422],
      ["/token?grant_type=made_up", {}, 400],
    ];
    for (const [path, body, status] of cases) {
      for (const missing of [body, withToken(body, "  "), { ...body, gotrue_meta_security: null }]) {
        const refused = await post(hcaptcha, path, missing);
        expect(refused.status, path).toBe(400);
        expect(await readJson(refused), path).toEqual({ code: 400, error_code: "captcha_failed", msg: MISSING });
      }
      const accepted = await post(hcaptcha, path, withToken(body, "good"));
      expect(accepted.status, path).toBe(status);
      expect((await readJson(accepted)).error_code, path).not.toBe("captcha_failed");
    }
  });

  it("answers the provider's error codes for a token it refuses, in both error shapes", async () => {
    const { error } = await hcaptcha.client().signUp({ email: email("captcha"), password: "secret-1", options: { captchaToken: "bad" } });
    expect(error).toMatchObject({ status: 400, code: "captcha_failed", message: REFUSED });
    const legacy = await post(hcaptcha, "/otp", withToken({ email: email("captcha") }, "bad"));
    expect(legacy.headers.get("x-sb-error-code")).toBe("captcha_failed");
    expect(await readJson(legacy)).toEqual({ code: 400, error_code: "captcha_failed", msg: REFUSED });
    const modern = await post(hcaptcha, "/otp", withToken({ email: email("captcha") }, "bad"), { "x-supabase-api-version": "2024-01-01" });
    expect(await readJson(modern)).toEqual({ code: "captcha_failed", message: REFUSED });
  });

  it("does not guard the refresh_token, pkce and id_token grants", async () => {
    const address = await user(hcaptcha);
    const { data } = await hcaptcha
      .client()
      .signInWithPassword({ email: address, password: "secret-1", options: { captchaToken: "good" } });
    const calls = verifier.calls.length;
    const refreshed = await post(hcaptcha, "/token?grant_type=refresh_token", { refresh_token: data.session?.refresh_token });
    expect(refreshed.status).toBe(200);
    for (const grant of ["pkce", "id_token"]) {
      const answer = await readJson(await post(hcaptcha, `/token?grant_type=${grant}`, { auth_code: "x", code_verifier: "y" }));
      expect(answer.error_code ?? answer.error, grant).not.toBe("captcha_failed");
    }
    expect(verifier.calls.length).toBe(calls);
  });

  it("skips the check for a service-role caller, not for an anon-role one", async () => {
    const body = { email: email("captcha"), password: "secret-1" };
    const admin = await post(hcaptcha, "/signup", body, { authorization: `Bearer ${await adminToken()}` });
    expect(admin.status).toBe(200);
    const signIn = await post(hcaptcha, "/token?grant_type=password", body, { authorization: `Bearer ${await adminToken()}` });
    expect(signIn.status).toBe(200);
    const anon = await post(hcaptcha, "/signup", body, { authorization: `Bearer ${await adminToken({ role: "anon" })}` });
    expect((await readJson(anon)).error_code).toBe("captcha_failed");
  });

  it("reads gotrue_meta_security as GoTrue decodes it: another type is bad JSON", async () => {
    for (const security of ["good", { captcha_token: 7 }]) {
      const answer = await readJson(await post(hcaptcha, "/signup", { gotrue_meta_security: security }));
      expect(answer).toMatchObject({ code: 400, error_code: "bad_json" });
    }
  });

  it("checks tokens with Turnstile when it is the provider", async () => {
    const { error } = await turnstile.client().signUp({ email: email("captcha"), password: "secret-1", options: { captchaToken: "good" } });
    expect(error).toBeNull();
    expect(verifier.calls.at(-1)).toMatchObject({ path: "/turnstile/v0/siteverify", form: { secret: "ts-secret", response: "good" } });
    const refused = await turnstile.client().signInWithOtp({ email: email("captcha"), options: { captchaToken: "bad" } });
    expect(refused.error).toMatchObject({ status: 400, code: "captcha_failed", message: REFUSED });
  });

  it("answers 500 without details when the provider does not answer in time or answers no JSON", async () => {
    for (const token of ["hang", "html"]) {
      const started = Date.now();
      const response = await post(hcaptcha, "/recover", withToken({ email: email("captcha") }, token));
      expect(response.status, token).toBe(500);
      expect(response.headers.get("x-sb-error-code")).toBe("unexpected_failure");
      const body = await readJson(response);
      expect(body).toEqual({
        code: 500,
        error_code: "unexpected_failure",
        msg: "captcha verification process failed",
        error_id: response.headers.get("x-request-id"),
      });
      if (token === "hang") expect(Date.now() - started).toBeLessThan(5_000);
    }
  });

  it("checks nothing when captcha is disabled", async () => {
    const calls = verifier.calls.length;
    const { error } = await open.client().signUp({ email: email("captcha"), password: "secret-1" });
    expect(error).toBeNull();
    expect((await post(open, "/otp", { email: email("captcha") })).status).toBe(200);
    expect(verifier.calls.length).toBe(calls);
  });
});

describe("the provider's answer", () => {
  it("is read as GoTrue decodes it", () => {
    expect(parseCaptchaAnswer('{"success":true}')).toEqual({ success: true, errorCodes: [] });
    expect(parseCaptchaAnswer("null")).toEqual({ success: false, errorCodes: [] });
    expect(parseCaptchaAnswer('{"error-codes":["a","b"]}')).toEqual({ success: false, errorCodes: ["a", "b"] });
    for (const text of ["[]", '{"success":"true"}', '{"error-codes":"a"}', "<html>"]) expect(() => parseCaptchaAnswer(text)).toThrow();
  });
});
