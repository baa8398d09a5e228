/**
 * A development mail catcher: an SMTP server inside the process that keeps the last messages in
 * memory (nothing leaves the machine) and logs each with its link, so `npm start` can run with
 * confirmations on and no mail server. The auth service shows them under /_mail.
 */
import type { AddressInfo } from "node:net";
import type { Logger } from "@platform/core";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CaughtMail {
  id: number;
  receivedAt: string;
  from: string;
  to: string;
  subject: string;
  html: string;
  /** The first link that carries a token (the confirmation link), when there is one. */
  link: string | undefined;
}

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).map((a) => a.text).join(", ");

function firstTokenLink(html: string): string | undefined {
  for (const match of html.matchAll(/href="([^"]*)"/g)) {
    const href = (match[1] as string).replace(/&amp;/g, "&").replace(/&#34;/g, '"').replace(/&#39;/g, "'");
    if (/[?&]token=/.test(href)) return href;
  }
  return undefined;
}

export class MailCatcher {
  private readonly messages: CaughtMail[] = [];
  private nextId = 1;

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(logger: Logger, limit = 50): Promise<MailCatcher> {
    let catcher: MailCatcher | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      logger: false,
      onData(stream, _session, done) {
        simpleParser(stream)
          .then((parsed) => {
            const html = typeof parsed.html === "string" ? parsed.html : `<pre>${parsed.textAsHtml ?? ""}</pre>`;
            const mail = catcher?.keep(
              { from: addresses(parsed.from), to: addresses(parsed.to), subject: parsed.subject ?? "", html, link: firstTokenLink(html) },
              limit,
            );
            if (mail) logger.info({ id: mail.id, to: mail.to, subject: mail.subject, link: mail.link }, "mail caught (not sent)");
            done();
          })
          .catch((error: Error) => done(error));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    catcher = new MailCatcher(server, (server.server.address() as AddressInfo).port);
    return catcher;
  }

  private keep(mail: Omit<CaughtMail, "id" | "receivedAt">, limit: number): CaughtMail {
    const caught = { id: this.nextId++, receivedAt: new Date().toISOString(), ...mail };
    this.messages.unshift(caught);
    this.messages.length = Math.min(this.messages.length, limit);
    return caught;
  }

  /** Newest first. */
  list(): readonly CaughtMail[] {
    return this.messages;
  }

  get(id: number): CaughtMail | undefined {
    return this.messages.find((mail) => mail.id === id);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
