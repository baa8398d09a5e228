/**
 * The email messenger: GoTrue's SMTP settings on a pooled nodemailer transport. As GoTrue's
 * mailer dials it, port 465 speaks TLS from the start and any other port upgrades with STARTTLS
 * when the server offers it; certificates are verified.
 */
import type { Logger } from "@platform/core";
import { createTransport } from "nodemailer";
import type { Messenger } from "../domain/messenger.js";
import type { MailComposer } from "./compose.js";

export interface SmtpSettings {
  host: string;
  port: number;
  user?: string | undefined;
  pass?: string | undefined;
  /** SMTP_ADMIN_EMAIL, shown with SMTP_SENDER_NAME when one is set. */
  fromAddress: string;
  senderName?: string | undefined;
}

export interface SmtpMessenger extends Messenger {
  close(): void;
}

export function smtpMessenger(settings: SmtpSettings, composer: MailComposer, logger: Logger): SmtpMessenger {
  const transport = createTransport({
    pool: true,
    host: settings.host,
    port: settings.port,
    secure: settings.port === 465,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.pass ?? "" } } : {}),
    // A send happens inside the request (and its transaction): fail in seconds, not minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const from = settings.senderName ? { name: settings.senderName, address: settings.fromAddress } : settings.fromAddress;
  return {
    async send(message) {
      const mail = await composer.compose(message);
      const info = await transport.sendMail({ from, to: mail.to, subject: mail.subject, html: mail.html });
      logger.debug({ kind: message.kind, userId: message.userId, messageId: info.messageId }, "email sent");
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}
