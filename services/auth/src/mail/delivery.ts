/**
 * Which messenger the service gets. Email: SMTP when SMTP_HOST is set; the in-process mail catcher
 * when asked for (the local `npm start`) and no SMTP server is configured; otherwise mail is
 * logged as not delivered. SMS: the configured provider (src/sms), whatever the email setup;
 * without SMS_PROVIDER an SMS is refused as GoTrue refuses it (500 "Unable to get SMS provider"),
 * since a code nobody receives would leave the user waiting.
 * nodemailer, smtp-server and mailparser are loaded only when needed, and the catcher starts with
 * the first mail, so a start that sends none does not pay for them.
 */
import type { Logger } from "@platform/core";
import type { AuthConfig } from "../config.js";
import { errors } from "../domain/errors.js";
import { byChannel, type Messenger, type SmsCodeChecker, undeliveredMessenger } from "../domain/messenger.js";
import { smsMessenger, smsProvider } from "../sms/messenger.js";
import { MailComposer } from "./compose.js";
import type { CaughtMail, MailCatcher } from "./mail-catcher.js";
import type { SmtpMessenger } from "./smtp-messenger.js";
import { TemplateSource } from "./template-source.js";

/** What /_mail shows. */
export interface Mailbox {
  /** Newest first. */
  list(): readonly CaughtMail[];
  get(id: number): CaughtMail | undefined;
}

export interface MailDelivery {
  messenger: Messenger;
  mailbox: Mailbox | undefined;
  /** The SMS provider's own code check (Twilio Verify). */
  smsCodes: SmsCodeChecker | undefined;
  close(): Promise<void>;
}

/** GoTrue's answer to an SMS when no SMS_PROVIDER is set (internal/api/phone.go cannot get one). */
const noSmsProvider: Messenger = {
  async send() {
    throw errors.smsProviderUnavailable();
  },
};

/** From address of caught mail when SMTP_ADMIN_EMAIL is not set. */
const CATCHER_FROM = "noreply@localhost";

export async function startMailDelivery(config: AuthConfig, logger: Logger, options: { mailCatcher: boolean }): Promise<MailDelivery> {
  const provider = smsProvider(config.sms);
  const sms = provider ? smsMessenger(config.sms, provider.sender, logger) : undefined;
  if (provider) logger.info({ provider: provider.sender.name }, "SMS are sent through the configured provider");
  const mail = await startEmail(config, logger, options);
  return {
    messenger: byChannel({ email: mail.email ?? undeliveredMessenger(logger), sms: sms ?? noSmsProvider }),
    mailbox: mail.mailbox,
    smsCodes: provider?.codes,
    close: mail.close,
  };
}

interface EmailDelivery {
  email: Messenger | undefined;
  mailbox: Mailbox | undefined;
  close(): Promise<void>;
}

async function startEmail(config: AuthConfig, logger: Logger, options: { mailCatcher: boolean }): Promise<EmailDelivery> {
  const { smtp, mailer, mailDelivery } = config;
  if (!smtp.host && !options.mailCatcher) return { email: undefined, mailbox: undefined, close: async () => {} };
  const templates = new TemplateSource({ ...mailer.templates, REAUTHENTICATION: mailDelivery.reauthenticationTemplate }, logger);
  const composer = new MailComposer(config, templates, logger);
  if (smtp.host) {
    const { smtpMessenger } = await import("./smtp-messenger.js");
    const email = smtpMessenger(
      {
        host: smtp.host,
        port: smtp.port,
        user: smtp.user,
        pass: smtp.pass,
        fromAddress: smtp.adminEmail as string,
        senderName: smtp.senderName,
      },
      composer,
      logger,
    );
    return { email, mailbox: undefined, close: () => email.close() };
  }

  let starting: Promise<{ catcher: MailCatcher; email: SmtpMessenger }> | undefined;
  let current: MailCatcher | undefined;
  const start = () => {
    starting ??= (async () => {
      const [{ MailCatcher }, { smtpMessenger }] = await Promise.all([import("./mail-catcher.js"), import("./smtp-messenger.js")]);
      const catcher = await MailCatcher.start(logger);
      const fromAddress = smtp.adminEmail ?? CATCHER_FROM;
      current = catcher;
      return {
        catcher,
        email: smtpMessenger({ host: "127.0.0.1", port: catcher.port, fromAddress, senderName: smtp.senderName }, composer, logger),
      };
    })().catch((error) => {
      starting = undefined;
      throw error;
    });
    return starting;
  };
  logger.info({ path: "/_mail" }, "no SMTP_HOST: emails are caught in-process and listed at /_mail, not sent");
  return {
    email: { send: async (message) => (await start()).email.send(message) },
    mailbox: { list: () => current?.list() ?? [], get: (id) => current?.get(id) },
    async close() {
      // A start that failed has nothing to close, and its error already went to the send that
      // asked for it (answered and logged as a delivery failure there).
      const started = await starting?.catch(() => undefined);
      await started?.email.close();
      await started?.catcher.close();
    },
  };
}
