/**
 * SMS one-time passwords (POST /otp with a phone) and POST /resend, through @supabase/auth-js.
 * Messages are kept by the test messenger (the providers' wire formats are in
 * sms-providers.test.ts). Covers sign-up by SMS, sign-in of a known phone with its `message_id`,
 * SMS_TEST_OTP and its validity window, channels, `create_user: false`, SMS_MAX_FREQUENCY, and
 * every type of /resend with its rules.
 */
import { sql } from "@platform/core";
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutgoingMessage } from "../src/domain/messenger.js";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import { backends, email, openTestDatabase, phone, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

const TEST_PHONE = "15550001234";

describe.each(backends)("SMS one-time passwords and /resend on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: GoTrueAdminApi;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db, {
      AUTH_MAILER_AUTOCONFIRM: "false",
      AUTH_SMS_AUTOCONFIRM: "false",
      AUTH_SMS_MAX_FREQUENCY: "60s",
      AUTH_SMTP_MAX_FREQUENCY: "60s",
      AUTH_SMS_TEST_OTP: `${TEST_PHONE}:424242`,
    });
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await database?.dispose();
  });

  const post = async (path: string, body: unknown) => {
    const response = await server.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const sentTo = (to: string): OutgoingMessage[] => server.outbox.filter((message) => message.to === to);
  const last = (to: string): OutgoingMessage => {
    const messages = sentTo(to);
    const message = messages[messages.length - 1];
    if (!message) throw new Error(`nothing sent to ${to}`);
    return message;
  };
  const backdate = (userId: string) =>
    database.db.query(
      sql`UPDATE ${server.table("users")} SET confirmation_sent_at = now() - interval '2 minutes', email_change_sent_at = now() - interval '2 minutes',
        phone_change_sent_at = now() - interval '2 minutes' WHERE id = ${userId}`,
    );

  it("signs up a new phone by SMS and signs it in; a known phone is answered its message_id", async () => {
    const number = phone();
    const digits = number.slice(1);
    const client = server.client();
    const sent = await client.signInWithOtp({ phone: number, options: { data: { via: "sms" } } });
    expect(sent.error).toBeNull();
    expect(sent.data.messageId).toBeUndefined();
    const confirmation = last(digits);
    expect(confirmation).toMatchObject({ kind: "confirmation", channel: "sms", via: "sms" });
    const verified = await client.verifyOtp({ phone: number, token: confirmation.otp, type: "sms" });
    expect(verified.error).toBeNull();
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy();
    expect(verified.data.user?.user_metadata).toMatchObject({ via: "sms" });

    await backdate(verified.data.user?.id as string);
    const again = await post("/otp", { phone: number });
    expect(again.status).toBe(200);
    expect(again.body.message_id).toMatch(/^recorded-\d+$/);
    const signIn = await server.client().verifyOtp({ phone: number, token: last(digits).otp, type: "sms" });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.id).toBe(verified.data.user?.id);
  });

  it("a number in SMS_TEST_OTP gets its fixed code and no SMS; the code lapses with SMS_TEST_OTP_VALID_UNTIL", async () => {
    const answer = await post("/otp", { phone: `+${TEST_PHONE}` });
    expect(answer.status).toBe(200);
    expect(sentTo(TEST_PHONE)).toHaveLength(0);
    const verified = await server.client().verifyOtp({ phone: `+${TEST_PHONE}`, token: "424242", type: "sms" });
    expect(verified.error).toBeNull();
    await backdate(verified.data.user?.id as string);
    expect(await post("/otp", { phone: `+${TEST_PHONE}` })).toEqual({ status: 200, body: { message_id: "test-otp" } });

    const lapsed = await startTestServer(database.db, {
      AUTH_SMS_AUTOCONFIRM: "false",
      AUTH_SMS_TEST_OTP: `${TEST_PHONE}:424242`,
      AUTH_SMS_TEST_OTP_VALID_UNTIL: "2020-01-01T00:00:00Z",
    });
    try {
      await backdate(verified.data.user?.id as string);
      const response = await lapsed.request("/otp", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ phone: `+${TEST_PHONE}` }),
      });
      expect(await response.json()).toEqual({ message_id: "recorded-1" });
      expect(lapsed.outbox[0]?.otp).not.toBe("424242");
      expect((await lapsed.client().verifyOtp({ phone: `+${TEST_PHONE}`, token: "424242", type: "sms" })).error?.code).toBe("otp_expired");
    } finally {
      await lapsed.close();
    }
  });

  it("create_user false answers without revealing the account; a repeated request inside the window is GoTrue's 429", async () => {
    const unknown = phone();
    expect(await post("/otp", { phone: unknown, create_user: false })).toEqual({ status: 200, body: {} });
    expect(sentTo(unknown.slice(1))).toHaveLength(0);

    const number = phone();
    await post("/otp", { phone: number });
    await server.client().verifyOtp({ phone: number, token: last(number.slice(1)).otp, type: "sms" });
    // Confirmed just now: the next code waits for SMS_MAX_FREQUENCY (GoTrue's 429).
    expect(await post("/otp", { phone: number })).toEqual({
      status: 429,
      body: {
        code: 429,
        error_code: "over_sms_send_rate_limit",
        msg: expect.stringMatching(/^For security purposes, you can only request this after \d+ seconds\.$/),
      },
    });
    expect(sentTo(number.slice(1))).toHaveLength(1);

    expect(await post("/otp", { phone: number, channel: "whatsapp" })).toMatchObject({
      status: 400,
      body: { error_code: "validation_failed", msg: expect.stringContaining("Invalid channel") },
    });
    expect(await post("/otp", { phone: "+0123" })).toMatchObject({
      status: 400,
      body: { msg: "Invalid phone number format (E.164 required)" },
    });
  });

  it("resends a sign-up confirmation once the frequency allows (GoTrue's 429 before); unknown and confirmed addresses get {} and nothing", async () => {
    const address = email("resend");
    const client = server.client();
    const signedUp = await client.signUp({ email: address, password: "secret-123" });
    expect(signedUp.error).toBeNull();
    expect(sentTo(address)).toHaveLength(1);
    const early = await client.resend({ type: "signup", email: address });
    expect(early.error).toMatchObject({ status: 429, code: "over_email_send_rate_limit" });
    expect(early.error?.message).toMatch(/^For security purposes, you can only request this after \d+ seconds\.$/);
    expect(sentTo(address)).toHaveLength(1);
    await backdate(signedUp.data.user?.id as string);
    const resent = await client.resend({ type: "signup", email: address, options: { emailRedirectTo: "http://localhost:3000/welcome" } });
    expect(resent.error).toBeNull();
    expect(resent.data).toEqual({ user: null, session: null, messageId: undefined });
    const latest = last(address);
    expect(latest).toMatchObject({ kind: "confirmation", redirectTo: "http://localhost:3000/welcome" });
    expect((await client.verifyOtp({ email: address, token: latest.otp, type: "signup" })).error).toBeNull();

    expect(await post("/resend", { type: "signup", email: address })).toEqual({ status: 200, body: {} });
    expect(await post("/resend", { type: "signup", email: email("nobody") })).toEqual({ status: 200, body: {} });
    expect(sentTo(address)).toHaveLength(2);
  });

  it("resends an SMS confirmation with its message_id, and a pending email or phone change", async () => {
    const number = phone();
    const signedUp = await server.client().signUp({ phone: number, password: "secret-123" });
    await backdate(signedUp.data.user?.id as string);
    const sms = await post("/resend", { type: "sms", phone: number });
    expect(sms.body.message_id).toMatch(/^recorded-/);
    expect(sentTo(number.slice(1))).toHaveLength(2);

    const { address, password } = await createConfirmedUser(admin, "change");
    const client = server.client();
    await client.signInWithPassword({ email: address, password });
    const newAddress = email("changed");
    expect((await client.updateUser({ email: newAddress })).error).toBeNull();
    expect(sentTo(newAddress)).toHaveLength(1);
    const user = (await client.getUser()).data.user;
    await backdate(user?.id as string);
    expect((await client.resend({ type: "email_change", email: address })).error).toBeNull();
    // Both addresses are asked again (secure email change).
    expect(sentTo(newAddress)).toHaveLength(2);
    expect(last(address).kind).toBe("email_change_current");

    // A phone change is resent by the account's current phone (GoTrue finds the user by it).
    const current = phone();
    const created = await admin.createUser({ phone: current, password: "secret-123", phone_confirm: true });
    const phoneClient = server.client();
    expect((await phoneClient.signInWithPassword({ phone: current, password: "secret-123" })).error).toBeNull();
    const newPhone = phone();
    expect((await phoneClient.updateUser({ phone: newPhone })).error).toBeNull();
    expect(sentTo(newPhone.slice(1))).toHaveLength(1);
    expect(await post("/resend", { type: "phone_change", phone: newPhone })).toEqual({ status: 200, body: {} });
    expect(await post("/resend", { type: "phone_change", phone: current })).toMatchObject({
      status: 429,
      body: { error_code: "over_sms_send_rate_limit" },
    });
    await backdate(created.data.user?.id as string);
    const resent = await post("/resend", { type: "phone_change", phone: current });
    expect(resent.body.message_id).toMatch(/^recorded-/);
    expect(sentTo(newPhone.slice(1))).toHaveLength(2);
    expect(last(newPhone.slice(1)).kind).toBe("phone_change");
    const changed = await phoneClient.verifyOtp({ phone: newPhone, token: last(newPhone.slice(1)).otp, type: "phone_change" });
    expect(changed.error).toBeNull();
    expect(changed.data.user?.phone).toBe(newPhone.slice(1));
  });

  it("validates /resend as GoTrue does", async () => {
    const cases: [unknown, string][] = [
      [{ type: "magiclink", email: email() }, "Missing one of these types: signup, email_change, sms, phone_change"],
      [{ type: "signup" }, "Type provided requires an email address"],
      [{ type: "sms" }, "Type provided requires a phone number"],
      [{ type: "email_change", email: email(), phone: phone() }, "Only an email address or phone number should be provided."],
      [{ type: "email_change" }, "Missing email address or phone number"],
      [{ type: "signup", email: "nope" }, "Unable to validate email address: invalid format"],
    ];
    for (const [body, msg] of cases) {
      expect(await post("/resend", body)).toMatchObject({ status: 400, body: { error_code: "validation_failed", msg } });
    }
  });
});
