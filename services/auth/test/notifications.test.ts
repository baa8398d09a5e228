/**
 * Notification mails over a real SMTP server in the test process: a changed password, a changed
 * email (to the old address), a changed phone and a newly linked phone identity, each sent only
 * when its MAILER_NOTIFICATIONS_*_ENABLED switch is on, after the change is committed; a
 * notification that cannot be sent leaves the change in place.
 */
import type { GoTrueAdminApi } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import { backends, email, openTestDatabase, phone, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";
import { code, deliveringTo, startSmtpServer, type TestSmtpServer, whileRefusing } from "./support/smtp.js";

const NEW_PHONE = phone();

describe.each(backends)("notification mails on %s", (backend) => {
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
        AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "false",
        AUTH_SMS_AUTOCONFIRM: "false",
        // The new phone's code is fixed, so no SMS provider is needed.
        AUTH_SMS_TEST_OTP: `${NEW_PHONE.slice(1)}:246810`,
        AUTH_MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED: "true",
        AUTH_MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED: "true",
        AUTH_MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED: "true",
        AUTH_MAILER_NOTIFICATIONS_IDENTITY_LINKED_ENABLED: "true",
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

  async function signedIn(prefix: string) {
    const account = await createConfirmedUser(admin, prefix);
    const client = server.client();
    const { error } = await client.signInWithPassword({ email: account.address, password: account.password });
    if (error) throw error;
    return { ...account, client };
  }

  it("mails the user when the password changes", async () => {
    const { address, client } = await signedIn("pwchange");
    expect((await client.updateUser({ password: "a-new-password-1" })).error).toBeNull();
    const mail = await smtp.next(address);
    expect(mail.subject).toBe("Your password has been changed");
    expect(mail.html).toContain(address);
  });

  it("mails the old address when an email change is verified", async () => {
    const { address, client } = await signedIn("emailchange");
    const next = email("emailchanged");
    expect((await client.updateUser({ email: next })).error).toBeNull();
    const confirm = await smtp.next(next);
    expect((await client.verifyOtp({ email: next, token: code(confirm), type: "email_change" })).error).toBeNull();
    const notice = await smtp.next(address);
    expect(notice.subject).toBe("Your email address has been changed");
    expect(notice.html).toContain(address);
    expect(notice.html).toContain(next);
  });

  it("mails the user when a phone is added: phone changed and identity linked", async () => {
    const { address, client } = await signedIn("phonechange");
    expect((await client.updateUser({ phone: NEW_PHONE })).error).toBeNull();
    const verified = await client.verifyOtp({ phone: NEW_PHONE, token: "246810", type: "phone_change" });
    expect(verified.error).toBeNull();
    const subjects = [(await smtp.next(address)).subject, (await smtp.next(address)).subject].sort();
    expect(subjects).toEqual(["A new identity has been linked", "Your phone number has been changed"]);
  });

  it("sends nothing with the switches off, and a change stands when its notification cannot be sent", async () => {
    const quiet = await startTestServer(database.db, deliveringTo(smtp), { deliver: true });
    try {
      const account = await createConfirmedUser(admin, "quiet");
      const client = quiet.client();
      await client.signInWithPassword({ email: account.address, password: account.password });
      expect((await client.updateUser({ password: "quiet-password-1" })).error).toBeNull();
    } finally {
      await quiet.close();
    }

    const { address, client } = await signedIn("notifyfail");
    expect((await whileRefusing(smtp, () => client.updateUser({ password: "changed-anyway-1" }))).error).toBeNull();
    expect((await server.client().signInWithPassword({ email: address, password: "changed-anyway-1" })).error).toBeNull();
    const quietMails = smtp.received.filter((mail) => mail.to.includes("quiet-"));
    expect(quietMails).toHaveLength(0);
  });
});
