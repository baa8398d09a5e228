/**
 * The SMTP messenger's transport thread (src/mail/smtp-worker.ts) against a real SMTP server in
 * the test process: mails composed here arrive whole, many at once; a refusal comes back as an
 * Error with nodemailer's fields; close() ends the thread, and the next mail starts a new one.
 */
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuthConfig } from "../src/config.js";
import type { OutgoingMessage } from "../src/domain/messenger.js";
import { MailComposer } from "../src/mail/compose.js";
import { type SmtpMessenger, smtpMessenger } from "../src/mail/smtp-messenger.js";
import { TemplateSource } from "../src/mail/template-source.js";
import { startSmtpServer, type TestSmtpServer, whileRefusing } from "./support/smtp.js";

describe("the SMTP transport thread", () => {
  let smtp: TestSmtpServer;
  let messenger: SmtpMessenger;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const logger = createLogger({ level: "silent" });
    const config = readAuthConfig({
      AUTH_DB_DRIVER: "postgres",
      AUTH_API_EXTERNAL_URL: "http://localhost:8081",
      AUTH_JWT_SECRET: "smtp-thread-test-secret-0123456789abcdef",
      AUTH_SITE_URL: "http://localhost:3000",
    });
    const composer = new MailComposer(config, new TemplateSource({}, logger), logger);
    messenger = smtpMessenger(
      { host: "127.0.0.1", port: smtp.port, fromAddress: "auth@example.com", senderName: "Example Auth" },
      composer,
      logger,
    );
  });
  afterAll(async () => {
    await messenger?.close();
    await smtp?.close();
  });

  const magicLink = (to: string): OutgoingMessage => ({
    kind: "magiclink",
    channel: "email",
    userId: "00000000-0000-4000-8000-000000000001",
    to,
    otp: "123456",
    tokenHash: "f".repeat(56),
    email: to,
  });

  it("delivers composed mails, many at once, each answered with its Message-ID", async () => {
    const addresses = Array.from({ length: 20 }, (_, i) => `thread-${i}@example.com`);
    const answers = await Promise.all(addresses.map((to) => messenger.send(magicLink(to))));
    const mails = await Promise.all(addresses.map((to) => smtp.next(to)));
    for (const [i, mail] of mails.entries()) {
      expect(mail.subject).toBe("Your Magic Link");
      expect(mail.from).toBe('"Example Auth" <auth@example.com>');
      expect(mail.html).toContain("123456");
      expect(mail.parsed.messageId).toBe(answers[i]?.messageId);
    }
    expect(new Set(answers.map((answer) => answer?.messageId)).size).toBe(addresses.length);
  });

  it("a refused mail fails with nodemailer's error fields and the thread's stack", async () => {
    const failure = await whileRefusing(smtp, () => messenger.send(magicLink("refused@example.com")).catch((error: unknown) => error));
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: "EENVELOPE", responseCode: 550, command: "RCPT TO" });
    expect((failure as Error).message).toContain("mailbox unavailable");
    expect((failure as Error).stack).toContain("smtp-connection");
    // The thread carries on.
    await messenger.send(magicLink("after-refusal@example.com"));
    expect((await smtp.next("after-refusal@example.com")).subject).toBe("Your Magic Link");
  });

  it("close() ends the thread; the next mail starts a new one", async () => {
    await messenger.send(magicLink("before-close@example.com"));
    await messenger.close();
    await messenger.send(magicLink("after-close@example.com"));
    expect((await smtp.next("after-close@example.com")).subject).toBe("Your Magic Link");
  });
});
