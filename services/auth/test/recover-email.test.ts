/**
 * POST /recover over a real SMTP server in the test process: auth-js's resetPasswordForEmail
 * mails a recovery link and code; the link's token_hash (or the code) signs the user in with a
 * session that may set a new password. Unknown addresses get the same answer and no mail; a
 * second request within the frequency sends nothing and answers GoTrue's 429 (or `{}` with
 * SECURITY_SILENT_SEND_WINDOW); a used or expired
 * token and a mail that cannot be sent are refused as GoTrue refuses them.
 */

import { ident, sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import { backends, email, one, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";
import { code, deliveringTo, startSmtpServer, type TestSmtpServer, tokenLink, tokenOf, whileRefusing } from "./support/smtp.js";

describe.each(backends)("password recovery by email on %s", (backend) => {
  let database: TestDatabase;
  let smtp: TestSmtpServer;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    smtp = await startSmtpServer();
    server = await startTestServer(
      database.db,
      {
        ...deliveringTo(smtp),
        AUTH_SMTP_MAX_FREQUENCY: "60s",
      },
      { deliver: true },
    );
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
    await database?.dispose();
  });

  const recoveryRow = (userId: string) =>
    one<{ recovery_token: string; recovery_sent_at: string | null }>(
      database.db,
      sql`SELECT recovery_token, recovery_sent_at FROM ${server.table("users")} WHERE id = ${userId}`,
    );
  const tokenCount = async (userId: string) =>
    Number(
      (
        await one<{ n: number }>(
          database.db,
          sql`SELECT count(*)::int AS n FROM ${server.table("one_time_tokens")} WHERE ${ident("user_id")} = ${userId}`,
        )
      ).n,
    );
  const post = (path: string, body: unknown) =>
    server.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("mails a recovery link; its token_hash gives a session that sets a new password", async () => {
    const { address, user } = await createConfirmedUser(admin, "recover");
    const client = server.client();
    const { data, error } = await client.resetPasswordForEmail(address, { redirectTo: "http://localhost:3000/reset" });
    expect(error).toBeNull();
    expect(data).toEqual({});
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Reset Your Password");
    const link = tokenLink(mail);
    expect(link).toMatch(/^http:\/\/localhost:8081\/verify\?token=[0-9a-f]{56}&type=recovery&redirect_to=http:\/\/localhost:3000\/reset$/);
    expect(code(mail)).toMatch(/^\d{6}$/);
    expect((await recoveryRow(user.id)).recovery_token).toBe(tokenOf(link));

    const verified = await client.verifyOtp({ type: "recovery", token_hash: tokenOf(link) });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();
    expect(verified.data.user?.recovery_sent_at).toBeTruthy();
    expect((await client.updateUser({ password: "recovered-1" })).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "recovered-1" })).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error?.code).toBe("invalid_credentials");
  });

  it("the mailed code verifies with the email too, and the link works through GET /verify", async () => {
    const byCode = await createConfirmedUser(admin, "bycode");
    expect((await server.client().resetPasswordForEmail(byCode.address)).error).toBeNull();
    const verified = await server
      .client()
      .verifyOtp({ type: "recovery", email: byCode.address, token: code(await smtp.next(byCode.address)) });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();

    const byLink = await createConfirmedUser(admin, "bylink");
    expect((await server.client().resetPasswordForEmail(byLink.address)).error).toBeNull();
    const link = new URL(tokenLink(await smtp.next(byLink.address)));
    const response = await server.request(`${link.pathname}${link.search}`, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/?#access_token=.*type=recovery/);
  });

  it("answers an unknown address exactly as a known one, and sends it nothing", async () => {
    const unknown = email("nobody");
    const { data, error } = await server.client().resetPasswordForEmail(unknown);
    expect(error).toBeNull();
    expect(data).toEqual({});
    const raw = await post("/recover", { email: unknown });
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual({});
    // Sending happens before the answer, so a mail to the unknown address would be here by now.
    const known = await createConfirmedUser(admin, "known");
    await server.client().resetPasswordForEmail(known.address);
    await smtp.next(known.address);
    expect(smtp.received.some((mail) => mail.to.includes(unknown))).toBe(false);
  });

  it("sends no second mail within the frequency: GoTrue's 429, or {} with SECURITY_SILENT_SEND_WINDOW", async () => {
    const { address, user } = await createConfirmedUser(admin, "twice");
    expect((await server.client().resetPasswordForEmail(address)).error).toBeNull();
    const first = tokenOf(tokenLink(await smtp.next(address)));
    const again = await post("/recover", { email: address });
    expect(again.status).toBe(429);
    expect(await again.json()).toEqual({
      code: 429,
      error_code: "over_email_send_rate_limit",
      msg: expect.stringMatching(/^For security purposes, you can only request this after \d+ seconds\.$/),
    });
    expect((await server.client().resetPasswordForEmail(address)).error?.code).toBe("over_email_send_rate_limit");
    const silent = await startTestServer(
      database.db,
      { ...deliveringTo(smtp), AUTH_SMTP_MAX_FREQUENCY: "60s", AUTH_SECURITY_SILENT_SEND_WINDOW: "true" },
      { deliver: true },
    );
    try {
      const quiet = await silent.request("/recover", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: address }),
      });
      expect(quiet.status).toBe(200);
      expect(await quiet.json()).toEqual({});
    } finally {
      await silent.close();
    }
    // The first link still stands and nothing else went out; after the interval a new one replaces it.
    expect((await recoveryRow(user.id)).recovery_token).toBe(first);
    expect(smtp.received.filter((mail) => mail.to.includes(address))).toHaveLength(1);
    await database.db.query(
      sql`UPDATE ${server.table("users")} SET recovery_sent_at = now() - interval '61 seconds' WHERE id = ${user.id}`,
    );
    expect((await server.client().resetPasswordForEmail(address)).error).toBeNull();
    const second = tokenOf(tokenLink(await smtp.next(address)));
    expect(second).not.toBe(first);
    expect((await server.client().verifyOtp({ type: "recovery", token_hash: first })).error?.code).toBe("otp_expired");
    expect((await server.client().verifyOtp({ type: "recovery", token_hash: second })).error).toBeNull();
  });

  it("refuses a used or expired token with otp_expired", async () => {
    const used = await createConfirmedUser(admin, "used");
    await server.client().resetPasswordForEmail(used.address);
    const hash = tokenOf(tokenLink(await smtp.next(used.address)));
    expect((await server.client().verifyOtp({ type: "recovery", token_hash: hash })).error).toBeNull();
    const reused = await server.client().verifyOtp({ type: "recovery", token_hash: hash });
    expect(reused.error?.code).toBe("otp_expired");
    // GoTrue words a spent or unknown token_hash as a link, a wrong or late code as a token.
    expect(reused.error?.message).toBe("Email link is invalid or has expired");
    expect(reused.error?.status).toBe(403);
    expect((await recoveryRow(used.user.id)).recovery_token).toBe("");
    expect(await tokenCount(used.user.id)).toBe(0);

    const expired = await createConfirmedUser(admin, "expired");
    await server.client().resetPasswordForEmail(expired.address);
    const mail = await smtp.next(expired.address);
    // MAILER_OTP_EXP defaults to a day.
    await database.db.query(
      sql`UPDATE ${server.table("users")} SET recovery_sent_at = now() - interval '25 hours' WHERE id = ${expired.user.id}`,
    );
    const late = await server.client().verifyOtp({ type: "recovery", token_hash: tokenOf(tokenLink(mail)) });
    expect(late.error?.code).toBe("otp_expired");
    expect(late.error?.message).toBe("Email link is invalid or has expired");
    const lateCode = await server.client().verifyOtp({ type: "recovery", email: expired.address, token: code(mail) });
    expect(lateCode.error?.code).toBe("otp_expired");
    expect(lateCode.error?.message).toBe("Token has expired or is invalid");
  });

  it("validates the address and sends a disallowed redirect_to to SITE_URL", async () => {
    const missing = await post("/recover", {});
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({ error_code: "validation_failed", msg: "Password recovery requires an email" });
    const invalid = await post("/recover", { email: "not-an-address" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "Unable to validate email address: invalid format",
    });

    const { address } = await createConfirmedUser(admin, "redirect");
    expect((await server.client().resetPasswordForEmail(address, { redirectTo: "https://evil.example/steal" })).error).toBeNull();
    expect(tokenLink(await smtp.next(address))).toMatch(/&type=recovery&redirect_to=http:\/\/localhost:3000$/);
  });

  it("a mail that cannot be sent answers 500 'Error sending recovery email' and leaves no recovery token", async () => {
    const { address, user } = await createConfirmedUser(admin, "failrecover");
    const response = await whileRefusing(smtp, () => post("/recover", { email: address }));
    expect(response.status).toBe(500);
    expect(response.headers.get("x-sb-error-code")).toBe("unexpected_failure");
    expect(await response.json()).toMatchObject({ error_code: "unexpected_failure", msg: "Error sending recovery email" });
    expect(await recoveryRow(user.id)).toEqual({ recovery_token: "", recovery_sent_at: null });
    expect(await tokenCount(user.id)).toBe(0);
    // Nothing was kept, so there is no waiting period before the next try.
    expect((await server.client().resetPasswordForEmail(address)).error).toBeNull();
    expect((await smtp.next(address)).subject).toBe("Reset Your Password");
  });
});
