/**
 * generate_link, /invite and /verify through @supabase/auth-js (GoTrueAdminApi.generateLink and
 * inviteUserByEmail, GoTrueClient.verifyOtp), plus GET /verify's redirects and redirect_to checks.
 */
import { createHash } from "node:crypto";
import { sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileGlob, isRedirectUrlValid } from "../src/domain/redirects.js";
import { adminApi, adminRequest, adminToken, createConfirmedUser } from "./support/admin.js";
import {
  backends,
  email,
  one,
  openTestDatabase,
  phone,
  readJson,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

const sha224 = (text: string) => createHash("sha224").update(text).digest("hex");
const SITE = "http://localhost:3000";

describe("redirect_to validation", () => {
  const settings = { siteUrl: SITE, uriAllowList: ["https://*.example.org/**", "myapp://callback", "https://app.test/{a,b}/?"] };
  it("accepts the site (any port on localhost), loopback IPs and allow-list globs", () => {
    expect(isRedirectUrlValid(settings, "http://localhost:3000/welcome?x=1#frag")).toBe(true);
    expect(isRedirectUrlValid(settings, "http://localhost:5173/")).toBe(true);
    expect(isRedirectUrlValid(settings, "http://127.0.0.1:9999/cb")).toBe(true);
    expect(isRedirectUrlValid(settings, "https://app.example.org/a/b/c")).toBe(true);
    expect(isRedirectUrlValid(settings, "myapp://callback#access_token=x")).toBe(true);
    expect(isRedirectUrlValid(settings, "https://app.test/b/z")).toBe(true);
  });
  it("refuses other hosts, other schemes, `*` across a dot, decimal and non-loopback IPs", () => {
    expect(isRedirectUrlValid(settings, "https://localhost:3000/")).toBe(false);
    expect(isRedirectUrlValid(settings, "https://evil.com/")).toBe(false);
    expect(isRedirectUrlValid(settings, "https://a.b.example.org/x")).toBe(false);
    expect(isRedirectUrlValid(settings, "https://example.org.evil.com/")).toBe(false);
    expect(isRedirectUrlValid(settings, "http://2130706433/")).toBe(false);
    expect(isRedirectUrlValid(settings, "http://10.0.0.1/")).toBe(false);
    expect(isRedirectUrlValid(settings, "https://app.test/c/z")).toBe(false);
    expect(isRedirectUrlValid(settings, "not a url")).toBe(false);
  });
  it("compiles globs with * inside a label or segment and ** across them", () => {
    expect(compileGlob("https://*.a.com/*").test("https://x.a.com/p")).toBe(true);
    expect(compileGlob("https://*.a.com/*").test("https://x.a.com/p/q")).toBe(false);
    expect(compileGlob("https://**.a.com/**").test("https://x.y.a.com/p/q")).toBe(true);
    expect(compileGlob("https://[a-c]?.a.com").test("https://bz.a.com")).toBe(true);
    expect(compileGlob("https://[!a-c]?.a.com").test("https://bz.a.com")).toBe(false);
  });
});

describe.each(backends)("links and /verify on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, {
      AUTH_MAILER_AUTOCONFIRM: "false",
      AUTH_SMS_AUTOCONFIRM: "false",
      AUTH_URI_ALLOW_LIST: "https://*.example.org/**",
      AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: "true",
    });
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const confirmedUser = (password?: string) => createConfirmedUser(admin, "link", password);

  /** The action link, pointed at the test server instead of API_EXTERNAL_URL. */
  const local = (actionLink: string) => {
    const link = new URL(actionLink);
    return `${link.pathname}${link.search}`;
  };

  const verify = (body: Record<string, unknown>) =>
    server.request("/verify", { method: "POST", headers: { "x-supabase-api-version": "2024-01-01" }, body: JSON.stringify(body) });

  it("signup link: the user is created unconfirmed, the link carries the stored hash, verifying it confirms and signs in once", async () => {
    const address = email("signup");
    const { data, error } = await admin.generateLink({
      type: "signup",
      email: address,
      password: "secret-1",
      options: { data: { plan: "free" } },
    });
    expect(error).toBeNull();
    const { properties, user } = data;
    expect(properties?.email_otp).toMatch(/^\d{6}$/);
    expect(properties?.hashed_token).toBe(sha224(address + properties?.email_otp));
    expect(properties).toMatchObject({ verification_type: "signup", redirect_to: SITE });
    expect(properties?.action_link).toBe(`http://localhost:8081/verify?token=${properties?.hashed_token}&type=signup&redirect_to=${SITE}`);
    expect(user).toMatchObject({ email: address, user_metadata: { plan: "free" }, app_metadata: { provider: "email" } });
    expect(user?.email_confirmed_at).toBeUndefined();
    expect(user?.confirmation_sent_at).toBeTruthy();
    const stored = await one<{ token_type: string; relates_to: string }>(
      server.db,
      sql`SELECT token_type::text, relates_to FROM ${server.table("one_time_tokens")} WHERE token_hash = ${properties?.hashed_token}`,
    );
    expect(stored).toEqual({ token_type: "confirmation_token", relates_to: address });
    expect(server.outbox.some((m) => m.to === address)).toBe(false);

    const client = server.client();
    const verified = await client.verifyOtp({ token_hash: properties?.hashed_token as string, type: "signup" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    expect(verified.data.user?.user_metadata).toMatchObject({ plan: "free", email_verified: true });
    expect(verified.data.user?.identities?.[0]?.identity_data).toMatchObject({ email_verified: true });
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error).toBeNull();

    const again = await server.client().verifyOtp({ token_hash: properties?.hashed_token as string, type: "signup" });
    expect({ status: again.error?.status, code: again.error?.code, message: again.error?.message }).toEqual({
      status: 403,
      code: "otp_expired",
      message: "Email link is invalid or has expired",
    });
    // The answer also says which type was verified.
    const second = await admin.generateLink({ type: "magiclink", email: address });
    const raw = await verify({ token_hash: second.data.properties?.hashed_token, type: "magiclink" });
    expect(await readJson(raw)).toMatchObject({ type: "magiclink", token_type: "bearer" });
  });

  it("magic link for a known user verifies by token_hash and by email + email_otp; for an unknown one it is a signup", async () => {
    const { address } = await confirmedUser();
    const first = await admin.generateLink({ type: "magiclink", email: address });
    expect(first.data.properties?.verification_type).toBe("magiclink");
    const byHash = await server.client().verifyOtp({ token_hash: first.data.properties?.hashed_token as string, type: "magiclink" });
    expect(byHash.error).toBeNull();
    expect(byHash.data.session?.user.email).toBe(address);

    const second = await admin.generateLink({ type: "magiclink", email: address });
    const wrong = await server.client().verifyOtp({ email: address, token: "000000", type: "email" });
    expect({ status: wrong.error?.status, code: wrong.error?.code, message: wrong.error?.message }).toEqual({
      status: 403,
      code: "otp_expired",
      message: "Token has expired or is invalid",
    });
    const byCode = await server.client().verifyOtp({ email: address, token: second.data.properties?.email_otp as string, type: "email" });
    expect(byCode.error).toBeNull();
    expect(byCode.data.session?.user.email).toBe(address);

    const stranger = email("stranger");
    const created = await admin.generateLink({ type: "magiclink", email: stranger });
    expect(created.data.properties?.verification_type).toBe("signup");
    expect(created.data.properties?.action_link).toContain("type=signup");
    const confirmed = await server
      .client()
      .verifyOtp({ email: stranger, token: created.data.properties?.email_otp as string, type: "email" });
    expect(confirmed.error).toBeNull();
    expect(confirmed.data.user?.email_confirmed_at).toBeTruthy();
  });

  it("recovery link: the session may set a new password without the current one", async () => {
    const { address } = await confirmedUser();
    const { data } = await admin.generateLink({ type: "recovery", email: address });
    expect(data.properties?.action_link).toContain("type=recovery");
    const client = server.client();
    const verified = await client.verifyOtp({ token_hash: data.properties?.hashed_token as string, type: "recovery" });
    expect(verified.error).toBeNull();
    const updated = await client.updateUser({ password: "recovered-2" });
    expect(updated.error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "recovered-2" })).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error?.code).toBe("invalid_credentials");

    const unknown = await admin.generateLink({ type: "recovery", email: email("nobody") });
    expect({ status: unknown.error?.status, code: unknown.error?.code, message: unknown.error?.message }).toEqual({
      status: 404,
      code: "user_not_found",
      message: "User with this email not found",
    });
  });

  it("invite link, then verify with email + code: the invited user is confirmed and signed in", async () => {
    const address = email("invited");
    const { data, error } = await admin.generateLink({ type: "invite", email: address, options: { data: { team: "a" } } });
    expect(error).toBeNull();
    expect(data.user?.invited_at).toBeTruthy();
    expect(data.properties?.action_link).toContain("type=invite");
    const verified = await server.client().verifyOtp({ email: address, token: data.properties?.email_otp as string, type: "invite" });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email: address, user_metadata: { team: "a", email_verified: true } });
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
    const again = await admin.generateLink({ type: "invite", email: address });
    expect({ status: again.error?.status, code: again.error?.code }).toEqual({ status: 422, code: "email_exists" });
  });

  it("POST /invite: creates the user with invited_at, hands the invite to the messenger, and the token verifies", async () => {
    const address = email("invitee");
    const { data, error } = await admin.inviteUserByEmail(address, {
      data: { role: "guest" },
      redirectTo: "https://app.example.org/welcome",
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: address, user_metadata: { role: "guest" } });
    expect(data.user?.invited_at).toBeTruthy();
    expect(data.user?.confirmation_sent_at).toBeTruthy();
    const message = server.outbox.find((m) => m.kind === "invite" && m.to === address);
    expect(message).toMatchObject({ channel: "email", userId: data.user?.id, redirectTo: "https://app.example.org/welcome" });
    expect(message?.tokenHash).toBe(sha224(address + message?.otp));
    const invited = server.client();
    const verified = await invited.verifyOtp({ token_hash: message?.tokenHash as string, type: "invite" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.user.email_confirmed_at).toBeTruthy();
    // The invited user picks a password (no current one is asked of a session from a one-time code).
    expect((await invited.updateUser({ password: "chosen-1" })).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "chosen-1" })).error).toBeNull();
    expect((await admin.inviteUserByEmail(address)).error?.code).toBe("email_exists");

    const platformAdmin = await adminApi(server, {}, await adminToken({ role: "platform_admin" }));
    expect((await platformAdmin.inviteUserByEmail(email("by-platform"))).error).toBeNull();
    expect((await platformAdmin.listUsers()).error?.code).toBe("not_admin");
    const { address: userAddress, password } = await confirmedUser();
    const { data: signedIn } = await server.client().signInWithPassword({ email: userAddress, password });
    const asUser = await adminApi(server, {}, signedIn.session?.access_token);
    expect((await asUser.inviteUserByEmail(email())).error?.code).toBe("not_admin");
  });

  it("email change links: with secure email change both addresses confirm, then the new address applies", async () => {
    const { user, address } = await confirmedUser();
    const next = email("next");
    const current = await admin.generateLink({ type: "email_change_current", email: address, newEmail: next });
    expect(current.error).toBeNull();
    expect(current.data.user?.new_email).toBe(next);
    expect(current.data.properties?.action_link).toContain("type=email_change");
    const fresh = await admin.generateLink({ type: "email_change_new", email: address, newEmail: next });
    expect(fresh.data.properties?.hashed_token).toBe(sha224(next + fresh.data.properties?.email_otp));

    const half = await verify({ token_hash: current.data.properties?.hashed_token, type: "email_change" });
    expect(half.status).toBe(200);
    expect(await readJson(half)).toEqual({
      msg: "Confirmation link accepted. Please proceed to confirm link sent to the other email",
      code: "200",
    });
    const done = await server.client().verifyOtp({ email: next, token: fresh.data.properties?.email_otp as string, type: "email_change" });
    expect(done.error).toBeNull();
    expect(done.data.user).toMatchObject({ id: user.id, email: next });
    expect(done.data.user).not.toHaveProperty("new_email");
    expect(done.data.user?.identities?.[0]?.identity_data).toMatchObject({ email: next, email_verified: true });

    const { address: taken } = await confirmedUser();
    expect((await admin.generateLink({ type: "email_change_new", email: next, newEmail: taken })).error?.code).toBe("email_exists");
  });

  it("verifies the codes the other flows send: signup confirmation, email change by PUT /user, phone sign-up and phone change", async () => {
    const address = email("code");
    const signup = await server.client().signUp({ email: address, password: "secret-1" });
    expect(signup.data.session).toBeNull();
    const confirmation = server.outbox.find((m) => m.kind === "confirmation" && m.to === address);
    const confirmed = await server.client().verifyOtp({ email: address, token: confirmation?.otp as string, type: "signup" });
    expect(confirmed.error).toBeNull();
    expect(confirmed.data.user?.email_confirmed_at).toBeTruthy();

    const client = server.client();
    await client.signInWithPassword({ email: address, password: "secret-1" });
    const next = email("moved");
    await client.updateUser({ email: next });
    const toNew = server.outbox.find((m) => m.kind === "email_change_new" && m.to === next);
    const toCurrent = server.outbox.find((m) => m.kind === "email_change_current" && m.to === address);
    const first = await verify({ email: address, token: toCurrent?.otp, type: "email_change" });
    expect(await readJson(first)).toMatchObject({ code: "200" });
    const second = await server.client().verifyOtp({ email: next, token: toNew?.otp as string, type: "email_change" });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(next);

    const number = phone();
    const byPhone = await server.client().signUp({ phone: number, password: "secret-1" });
    expect(byPhone.error).toBeNull();
    const sms = server.outbox.find((m) => m.kind === "confirmation" && m.to === number.slice(1));
    const phoneSession = await server.client().verifyOtp({ phone: number, token: sms?.otp as string, type: "sms" });
    expect(phoneSession.error).toBeNull();
    expect(phoneSession.data.user?.phone_confirmed_at).toBeTruthy();

    const phoneClient = server.client();
    await phoneClient.setSession(phoneSession.data.session as never);
    const newNumber = phone();
    expect((await phoneClient.updateUser({ phone: newNumber })).error).toBeNull();
    const change = server.outbox.find((m) => m.kind === "phone_change" && m.to === newNumber.slice(1));
    const changed = await server.client().verifyOtp({ phone: newNumber, token: change?.otp as string, type: "phone_change" });
    expect(changed.error).toBeNull();
    expect(changed.data.user?.phone).toBe(newNumber.slice(1));
  });

  it("refuses expired codes, banned users, and malformed verify requests", async () => {
    const { user, address } = await confirmedUser();
    const link = await admin.generateLink({ type: "magiclink", email: address });
    await server.db.query(sql`UPDATE ${server.table("users")} SET recovery_sent_at = now() - interval '2 days' WHERE id = ${user.id}`);
    const expired = await server.client().verifyOtp({ token_hash: link.data.properties?.hashed_token as string, type: "magiclink" });
    expect(expired.error?.code).toBe("otp_expired");
    const expiredCode = await server
      .client()
      .verifyOtp({ email: address, token: link.data.properties?.email_otp as string, type: "magiclink" });
    expect(expiredCode.error?.code).toBe("otp_expired");

    const fresh = await admin.generateLink({ type: "magiclink", email: address });
    await admin.updateUserById(user.id, { ban_duration: "1h" });
    const banned = await server.client().verifyOtp({ token_hash: fresh.data.properties?.hashed_token as string, type: "magiclink" });
    expect({ status: banned.error?.status, code: banned.error?.code }).toEqual({ status: 403, code: "user_banned" });

    const cases: [Record<string, unknown>, number, string][] = [
      [{ token_hash: "abc" }, 400, "Verify requires a verification type"],
      [{ type: "signup" }, 400, "Verify requires either a token or a token hash"],
      [{ type: "signup", token: "1", token_hash: "abc" }, 400, "Verify requires either a token or a token hash"],
      [{ type: "signup", token: "123456" }, 400, "Only an email address or phone number should be provided on verify"],
      [{ type: "signup", token_hash: "abc", email: address }, 400, "Only the token_hash and type should be provided"],
      [{ type: "signup", token: "123456", email: "nope" }, 422, "Invalid email format"],
      [{ type: "sms", token_hash: "abc" }, 400, "Invalid email verification type"],
      [{ type: "signup", token: "123456", phone: "+15550000000" }, 403, "Token has expired or is invalid"],
      [{ type: "sms", token: "123456", phone: "+15550000000" }, 403, "Token has expired or is invalid"],
      [{ type: "bogus", token_hash: "abc" }, 400, "Unsupported verification type"],
      [{ type: "recovery", token_hash: "f".repeat(56) }, 403, "Email link is invalid or has expired"],
    ];
    for (const [body, status, message] of cases) {
      const response = await verify(body);
      expect({ status: response.status, message: (await readJson(response)).message }).toEqual({ status, message });
    }
  });

  it("GET /verify redirects with the session in the fragment, or the error there", async () => {
    const { address } = await confirmedUser();
    const { data } = await admin.generateLink({
      type: "magiclink",
      email: address,
      options: { redirectTo: "https://app.example.org/done" },
    });
    expect(data.properties?.redirect_to).toBe("https://app.example.org/done");
    expect(data.properties?.action_link).toContain("&redirect_to=https://app.example.org/done");
    const ok = await server.request(local(data.properties?.action_link as string), { redirect: "manual" });
    expect(ok.status).toBe(303);
    const location = ok.headers.get("location") as string;
    expect(location.startsWith("https://app.example.org/done#access_token=")).toBe(true);
    const fragment = new URLSearchParams(location.split("#")[1]);
    expect(fragment.get("type")).toBe("magiclink");
    expect(fragment.get("token_type")).toBe("bearer");
    expect(fragment.get("refresh_token")).toMatch(/^[a-z2-7]{12}$/);
    expect(fragment.has("sb")).toBe(true);

    const reused = await server.request(local(data.properties?.action_link as string), { redirect: "manual" });
    expect(reused.status).toBe(303);
    expect(reused.headers.get("location")).toBe(
      "https://app.example.org/done#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=",
    );

    const elsewhere = await admin.generateLink({ type: "magiclink", email: address, options: { redirectTo: "https://evil.example.com/" } });
    expect(elsewhere.data.properties?.redirect_to).toBe(SITE);
    const deep = await admin.generateLink({ type: "magiclink", email: address, options: { redirectTo: "https://a.b.example.org/" } });
    expect(deep.data.properties?.redirect_to).toBe(SITE);
    const viaReferer = await adminRequest(server, "/admin/generate_link", {
      method: "POST",
      headers: { referer: "http://localhost:3000/from" },
      body: JSON.stringify({ type: "magiclink", email: address }),
    });
    expect((await readJson(viaReferer)).redirect_to).toBe("http://localhost:3000/from");
    const encoded = await admin.generateLink({ type: "magiclink", email: address, options: { redirectTo: `${SITE}/cb?next=/a&x=1` } });
    expect(encoded.data.properties?.action_link).toContain("&redirect_to=http%3A%2F%2Flocalhost%3A3000%2Fcb%3Fnext%3D%2Fa%26x%3D1");

    const missing = await server.request("/verify?token=abc", { headers: { "x-supabase-api-version": "2024-01-01" } });
    expect(missing.status).toBe(400);
    expect(await readJson(missing)).toEqual({ code: "validation_failed", message: "Verify requires a verification type" });
  });

  it("refuses generate_link without an admin token, with a bad type, or without a password for a new signup", async () => {
    expect((await server.request("/admin/generate_link", { method: "POST", body: "{}" })).status).toBe(401);
    const badType = await admin.generateLink({ type: "weird" as never, email: email() });
    expect({ status: badType.error?.status, message: badType.error?.message }).toEqual({
      status: 400,
      message: "Invalid email action link type requested: weird",
    });
    const noPassword = await admin.generateLink({ type: "signup", email: email() } as never);
    expect(noPassword.error?.message).toBe("Signup requires a valid password");
    const weak = await admin.generateLink({ type: "signup", email: email(), password: "abc" });
    expect(weak.error?.code).toBe("weak_password");
  });
});
