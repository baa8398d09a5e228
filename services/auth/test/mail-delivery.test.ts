/**
 * Email over SMTP: a real SMTP server in the test process receives what the auth service sends;
 * the tests read the link or code from the mail and finish the flow through @supabase/auth-js
 * (sign-up confirmation, invite, reauthentication, email change), and check that a mail that
 * cannot be sent answers GoTrue's error and leaves nothing half-written.
 */

import { ident, sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, adminToken, createConfirmedUser } from "./support/admin.js";
import { backends, email, one, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";
import { code, deliveringTo, startSmtpServer, type TestSmtpServer, tokenLink, tokenOf, whileRefusing } from "./support/smtp.js";

describe.each(backends)("email delivery over SMTP on %s", (backend) => {
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
        GOTRUE_SMTP_SENDER_NAME: "Example Auth",
        AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
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

  it("sign-up with autoconfirm off mails a confirmation link and code; the link's token_hash verifies", async () => {
    const address = email("signup");
    const client = server.client();
    const { data, error } = await client.signUp({ email: address, password: "secret-1" });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Confirm Your Signup");
    expect(mail.from).toBe('"Example Auth" <auth@example.com>');
    const link = tokenLink(mail);
    expect(link).toMatch(/^http:\/\/localhost:8081\/verify\?token=[0-9a-f]{56}&type=signup&redirect_to=http:\/\/localhost:3000$/);
    expect(code(mail)).toMatch(/^\d{6}$/);
    const verified = await client.verifyOtp({ type: "signup", token_hash: tokenOf(link) });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.email_confirmed_at).toBeTruthy();
  });

  it("the confirmation link itself (GET /verify) signs the user in, and the mailed code works too", async () => {
    const byLink = email("link");
    await server.client().signUp({ email: byLink, password: "secret-1" });
    const link = new URL(tokenLink(await smtp.next(byLink)));
    const response = await server.request(`${link.pathname}${link.search}`, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/?#access_token=/);

    const byCode = email("code");
    await server.client().signUp({ email: byCode, password: "secret-1" });
    const verified = await server.client().verifyOtp({ email: byCode, token: code(await smtp.next(byCode)), type: "email" });
    expect(verified.error).toBeNull();
    expect(verified.data.session?.access_token).toBeTruthy();
  });

  it("an invite from the admin API is mailed with its redirect; the invitee verifies and sets a password", async () => {
    const address = email("invitee");
    const { error } = await admin.inviteUserByEmail(address, { redirectTo: "http://localhost:3000/welcome", data: { team: "a" } });
    expect(error).toBeNull();
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("You have been invited");
    const link = tokenLink(mail);
    expect(link).toContain("type=invite&redirect_to=http://localhost:3000/welcome");
    const invited = server.client();
    expect((await invited.verifyOtp({ type: "invite", token_hash: tokenOf(link) })).error).toBeNull();
    expect((await invited.updateUser({ password: "chosen-1" })).error).toBeNull();
  });

  it("reauthenticate mails a nonce; updateUser with it changes the password of an old session", async () => {
    const { address } = await createConfirmedUser(admin, "reauth");
    const client = server.client();
    const { data } = await client.signInWithPassword({ email: address, password: "secret-1" });
    await database.db.query(
      sql`UPDATE ${server.table("sessions")} SET created_at = now() - interval '25 hours' WHERE user_id = ${data.user?.id as string}`,
    );
    expect((await client.updateUser({ password: "secret-2" })).error?.code).toBe("reauthentication_needed");
    expect((await client.reauthenticate()).error).toBeNull();
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Confirm reauthentication");
    expect((await client.updateUser({ password: "secret-2", nonce: code(mail) })).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "secret-2" })).error).toBeNull();
  });

  it("an email change mails both addresses; confirming both moves the account", async () => {
    const { address } = await createConfirmedUser(admin, "old");
    const client = server.client();
    await client.signInWithPassword({ email: address, password: "secret-1" });
    const next = email("new");
    expect((await client.updateUser({ email: next })).error).toBeNull();
    const toNew = await smtp.next(next);
    const toCurrent = await smtp.next(address);
    for (const mail of [toNew, toCurrent]) {
      expect(mail.subject).toBe("Confirm Email Change");
      expect(mail.html).toContain(next);
      expect(tokenLink(mail)).toContain("type=email_change");
    }
    expect((await client.verifyOtp({ type: "email_change", token_hash: tokenOf(tokenLink(toCurrent)) })).error).toBeNull();
    const done = await client.verifyOtp({ type: "email_change", token_hash: tokenOf(tokenLink(toNew)) });
    expect(done.error).toBeNull();
    expect(done.data.user?.email).toBe(next);
  });

  describe("when the mail server refuses the mail", () => {
    const refusing = <T>(action: () => Promise<T>) => whileRefusing(smtp, action);
    const count = async (table: string, column: string, value: string) =>
      Number(
        (
          await one<{ n: number }>(
            database.db,
            sql`SELECT count(*)::int AS n FROM ${server.table(table)} WHERE ${ident(column)} = ${value}`,
          )
        ).n,
      );

    /** auth-js reports any 5xx as a retryable fetch error without the body, so the body is read here. */
    async function failure(path: string, init: RequestInit) {
      const response = await refusing(() => server.request(path, init));
      const body = (await response.json()) as Record<string, unknown>;
      return { status: response.status, header: response.headers.get("x-sb-error-code"), error_code: body.error_code, msg: body.msg };
    }
    const gotrueError = (msg: string) => ({ status: 500, header: "unexpected_failure", error_code: "unexpected_failure", msg });
    const json = (method: string, body: unknown, token?: string): RequestInit => ({
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    async function signedIn(prefix: string) {
      const { address, user } = await createConfirmedUser(admin, prefix);
      const { data } = await server.client().signInWithPassword({ email: address, password: "secret-1" });
      return { user, token: data.session?.access_token as string };
    }

    it("sign-up answers 500 'Error sending confirmation email' and creates no user", async () => {
      const address = email("failsignup");
      const { error } = await refusing(() => server.client().signUp({ email: address, password: "secret-1" }));
      expect(error?.status).toBe(500);
      expect(await failure("/signup", json("POST", { email: address, password: "secret-1" }))).toEqual(
        gotrueError("Error sending confirmation email"),
      );
      expect(await count("users", "email", address)).toBe(0);
      // Once mail goes through again, the same address signs up normally.
      expect((await server.client().signUp({ email: address, password: "secret-1" })).error).toBeNull();
      expect((await smtp.next(address)).subject).toBe("Confirm Your Signup");
    });

    it("an invite answers 'Error sending invite email' and leaves no invited user", async () => {
      const address = email("failinvite");
      const { error } = await refusing(() => admin.inviteUserByEmail(address));
      expect(error?.status).toBe(500);
      const token = await adminToken();
      expect(await failure("/invite", json("POST", { email: address }, token))).toEqual(gotrueError("Error sending invite email"));
      expect(await count("users", "email", address)).toBe(0);
    });

    it("reauthenticate answers 'Error sending reauthentication email' and stores no nonce", async () => {
      const { user, token } = await signedIn("failreauth");
      expect(await failure("/reauthenticate", { headers: { authorization: `Bearer ${token}` } })).toEqual(
        gotrueError("Error sending reauthentication email"),
      );
      const row = await one<{ reauthentication_token: string; reauthentication_sent_at: string | null }>(
        database.db,
        sql`SELECT reauthentication_token, reauthentication_sent_at FROM ${server.table("users")} WHERE id = ${user.id}`,
      );
      expect(row).toEqual({ reauthentication_token: "", reauthentication_sent_at: null });
      expect(await count("one_time_tokens", "user_id", user.id)).toBe(0);
      // No sent_at was kept, so there is no waiting period before the next try.
      const retry = await server.request("/reauthenticate", { headers: { authorization: `Bearer ${token}` } });
      expect(retry.status).toBe(200);
    });

    it("an email change answers 'Error sending email change email' and nothing of the update is kept", async () => {
      const { user, token } = await signedIn("failchange");
      expect(await failure("/user", json("PUT", { email: email("target"), data: { touched: true } }, token))).toEqual(
        gotrueError("Error sending email change email"),
      );
      const row = await one<{
        email_change: string | null;
        email_change_sent_at: string | null;
        raw_user_meta_data: Record<string, unknown>;
      }>(
        database.db,
        sql`SELECT email_change, email_change_sent_at, raw_user_meta_data FROM ${server.table("users")} WHERE id = ${user.id}`,
      );
      expect(row.email_change ?? "").toBe("");
      expect(row.email_change_sent_at).toBeNull();
      expect(row.raw_user_meta_data).not.toHaveProperty("touched");
      expect(await count("one_time_tokens", "user_id", user.id)).toBe(0);
    });
  });
});
