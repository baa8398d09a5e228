/** GET and PUT /user and GET /reauthenticate through @supabase/auth-js. */
import { sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, email, one, openTestDatabase, phone, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

describe.each(backends)("the current user on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let strict: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db);
    strict = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "strict",
      AUTH_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "true",
      AUTH_SMS_AUTOCONFIRM: "false",
    });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), strict?.close()]);
    await database?.dispose();
  });

  async function signedIn(target = server) {
    const address = email();
    const client = target.client();
    const { data, error } = await client.signUp({ email: address, password: "secret-1" });
    if (error || !data.session) throw error ?? new Error("no session");
    return { client, session: data.session, address };
  }

  it("reads the user", async () => {
    const { client, session, address } = await signedIn();
    const { data, error } = await client.getUser();
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: session.user.id, email: address, aud: "authenticated" });
    expect(data.user?.identities?.[0]?.provider).toBe("email");
  });

  it("merges data into user_metadata; null removes a key", async () => {
    const { client } = await signedIn();
    await client.updateUser({ data: { name: "Ada", plan: "free" } });
    const { data, error } = await client.updateUser({ data: { plan: null, lang: "en" } });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).toMatchObject({ name: "Ada", lang: "en" });
    expect(data.user?.user_metadata).not.toHaveProperty("plan");
  });

  it("refuses app_metadata from a non-admin user", async () => {
    const { session } = await signedIn();
    const response = await server.request("/user", {
      method: "PUT",
      headers: { authorization: `Bearer ${session.access_token}`, "x-supabase-api-version": "2024-01-01" },
      body: JSON.stringify({ app_metadata: { role: "boss" } }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ code: "not_admin", message: "Updating app_metadata requires admin privileges" });
  });

  it("changes the password: the old one stops working, other sessions end, the current one stays", async () => {
    const { client, session, address } = await signedIn();
    const other = await server.client().signInWithPassword({ email: address, password: "secret-1" });
    const { error } = await client.updateUser({ password: "new-secret-2" });
    expect(error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error?.code).toBe("invalid_credentials");
    expect((await server.client().signInWithPassword({ email: address, password: "new-secret-2" })).error).toBeNull();
    expect((await server.client().refreshSession({ refresh_token: other.data.session?.refresh_token as string })).error?.code).toBe(
      "refresh_token_not_found",
    );
    expect((await server.client().refreshSession({ refresh_token: session.refresh_token })).error).toBeNull();
    const same = await client.updateUser({ password: "new-secret-2" });
    expect({ code: same.error?.code, status: same.error?.status, message: same.error?.message }).toEqual({
      code: "same_password",
      status: 422,
      message: "New password should be different from the old password.",
    });
    const weak = await client.updateUser({ password: "abc" });
    expect(weak.error?.code).toBe("weak_password");
  });

  it("requires a reauthentication nonce for a password change when configured and the session is over 24 hours old", async () => {
    const fresh = await signedIn(strict);
    // A session begun within 24 hours changes the password without a nonce, as GoTrue allows.
    expect((await fresh.client.updateUser({ password: "new-secret-2" })).error).toBeNull();

    const { client, session, address } = await signedIn(strict);
    await strict.db.query(
      sql`UPDATE ${strict.table("sessions")} SET created_at = now() - interval '25 hours' WHERE user_id = ${session.user.id}`,
    );
    const missing = await client.updateUser({ password: "new-secret-2" });
    expect({ code: missing.error?.code, status: missing.error?.status, message: missing.error?.message }).toEqual({
      code: "reauthentication_needed",
      status: 400,
      message: "Password update requires reauthentication",
    });
    expect((await client.reauthenticate()).error).toBeNull();
    const nonce = strict.outbox.filter((m) => m.kind === "reauthentication" && m.to === address).at(-1);
    expect(nonce).toMatchObject({ channel: "email" });
    const wrong = await client.updateUser({ password: "new-secret-2", nonce: "000000" === nonce?.otp ? "111111" : "000000" });
    expect({ code: wrong.error?.code, status: wrong.error?.status, message: wrong.error?.message }).toEqual({
      code: "reauthentication_not_valid",
      status: 422,
      message: "Nonce has expired or is invalid",
    });
    expect((await client.updateUser({ password: "new-secret-2", nonce: nonce?.otp })).error).toBeNull();
    // A nonce works once.
    expect((await client.updateUser({ password: "new-secret-3", nonce: nonce?.otp })).error?.code).toBe("reauthentication_not_valid");
    expect((await strict.client().signInWithPassword({ email: address, password: "new-secret-2" })).error).toBeNull();
  });

  it("stores the reauthentication nonce hashed, and refuses a second one within a minute", async () => {
    const { client, session } = await signedIn(strict);
    await client.reauthenticate();
    const row = await one<{ reauthentication_token: string; reauthentication_sent_at: string | null }>(
      strict.db,
      sql`SELECT reauthentication_token, reauthentication_sent_at FROM ${strict.table("users")} WHERE id = ${session.user.id}`,
    );
    const sent = strict.outbox.filter((m) => m.userId === session.user.id).at(-1);
    expect(row.reauthentication_token).toBe(sent?.tokenHash);
    expect(row.reauthentication_token).not.toContain(sent?.otp);
    expect(row.reauthentication_sent_at).not.toBeNull();
    const again = await client.reauthenticate();
    expect({ code: again.error?.code, status: again.error?.status }).toEqual({ code: "over_email_send_rate_limit", status: 429 });
    expect(again.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
  });

  it("records an email change as pending, with codes for the new and the current address", async () => {
    const { client, session, address } = await signedIn();
    const next = email("next");
    const { data, error } = await client.updateUser({ email: next });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(address);
    expect(data.user?.new_email).toBe(next);
    expect(data.user?.email_change_sent_at).toBeTruthy();
    const sent = server.outbox.filter((m) => m.userId === session.user.id).map((m) => [m.kind, m.to]);
    expect(sent).toEqual([
      ["email_change_new", next],
      ["email_change_current", address],
    ]);
    const tokens = await server.db.query<{ token_type: string }>(
      sql`SELECT token_type::text FROM ${server.table("one_time_tokens")} WHERE user_id = ${session.user.id} ORDER BY token_type`,
    );
    expect(tokens.rows.map((r) => r.token_type).sort()).toEqual(["email_change_token_current", "email_change_token_new"]);
    const taken = await signedIn();
    const clash = await taken.client.updateUser({ email: address });
    expect({ code: clash.error?.code, status: clash.error?.status, message: clash.error?.message }).toEqual({
      code: "email_exists",
      status: 422,
      message: "A user with this email address has already been registered",
    });
  });

  it("records a phone change as pending, or applies it under SMS autoconfirm", async () => {
    const pending = await signedIn(strict);
    const number = phone();
    const { data, error } = await pending.client.updateUser({ phone: number });
    expect(error).toBeNull();
    expect(data.user?.phone).toBe("");
    expect(data.user?.new_phone).toBe(number.slice(1));
    expect(strict.outbox.at(-1)).toMatchObject({ kind: "phone_change", channel: "sms", to: number.slice(1) });
    const applied = await signedIn();
    const other = phone();
    const result = await applied.client.updateUser({ phone: other });
    expect(result.data.user?.phone).toBe(other.slice(1));
    expect(result.data.user?.phone_confirmed_at).toBeTruthy();
    expect(result.data.user?.app_metadata.providers).toEqual(["email", "phone"]);
    const clash = await (await signedIn()).client.updateUser({ phone: other });
    expect(clash.error?.code).toBe("phone_exists");
  });

  it("converts an anonymous user: email at once under mailer autoconfirm, a password only with an email or phone", async () => {
    const client = server.client();
    await client.signInAnonymously();
    const lonely = await client.updateUser({ password: "secret-1" });
    expect({ code: lonely.error?.code, status: lonely.error?.status, message: lonely.error?.message }).toEqual({
      code: "validation_failed",
      status: 422,
      message: "Updating password of an anonymous user without an email or phone is not allowed",
    });
    const reauth = await client.reauthenticate();
    expect(reauth.error?.message).toBe("Reauthentication requires the user to have an email or a phone number");
    const address = email("converted");
    const { data, error } = await client.updateUser({ email: address, password: "secret-1" });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: address, is_anonymous: false, app_metadata: { provider: "email", providers: ["email"] } });
    expect(data.user?.identities?.map((i) => i.provider)).toEqual(["email"]);
    expect((await server.client().signInWithPassword({ email: address, password: "secret-1" })).error).toBeNull();
  });
});
