/**
 * A real SMTP server in the test process (smtp-server + mailparser): what the auth service sends
 * arrives here, parsed. `rejecting` makes it refuse every recipient, as a mail server that is up
 * but will not take the mail.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string;
  subject: string;
  html: string;
  parsed: ParsedMail;
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  rejecting: boolean;
  /** Waits for the next mail to `to` (one already received and not yet taken counts). */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const text = (value: ParsedMail["to"] | ParsedMail["from"]) =>
  Array.isArray(value) ? value.map((v) => v.text).join(", ") : (value?.text ?? "");

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters: Array<() => void> = [];
  const state = { rejecting: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(_address, _session, done) {
      done(state.rejecting ? Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }) : undefined);
    },
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({
            from: text(parsed.from),
            to: text(parsed.to),
            subject: parsed.subject ?? "",
            html: typeof parsed.html === "string" ? parsed.html : "",
            parsed,
          });
          for (const wake of waiters.splice(0)) wake();
          done();
        })
        .catch((error: Error) => done(error));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const take = (to: string) => {
    const mail = received.find((m) => !taken.has(m) && m.to.includes(to));
    if (mail) taken.add(mail);
    return mail;
  };
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    get rejecting() {
      return state.rejecting;
    },
    set rejecting(value: boolean) {
      state.rejecting = value;
    },
    async next(to, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = take(to);
        if (mail) return mail;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs `action` while the server refuses every recipient, as a mail server that will not take the mail. */
export async function whileRefusing<T>(smtp: TestSmtpServer, action: () => Promise<T>): Promise<T> {
  smtp.rejecting = true;
  try {
    return await action();
  } finally {
    smtp.rejecting = false;
  }
}

/** The link of a mail that carries a token, with HTML entities undone. */
export function tokenLink(mail: ReceivedMail): string {
  for (const match of mail.html.matchAll(/href="([^"]*)"/g)) {
    const href = (match[1] as string).replace(/&amp;/g, "&");
    if (/[?&]token=/.test(href)) return href;
  }
  throw new Error(`no link with a token in "${mail.subject}"`);
}

/** The settings that deliver auth's mail to this test server, sign-ups waiting for confirmation. */
export function deliveringTo(smtp: TestSmtpServer): Record<string, string> {
  return {
    AUTH_MAILER_AUTOCONFIRM: "false",
    AUTH_SMTP_HOST: "127.0.0.1",
    AUTH_SMTP_PORT: String(smtp.port),
    AUTH_SMTP_ADMIN_EMAIL: "auth@example.com",
  };
}

/** The `token` (its hash) a mailed /verify link carries. */
export const tokenOf = (link: string) => new URL(link).searchParams.get("token") as string;

/** The first run of 6 to 10 digits in the mail's text: the code. */
export function code(mail: ReceivedMail): string {
  // Addresses and links are left out first: a test address such as `code-12345678@example.com`
  // (its part after the label is random hex, all digits about once in 40) would be taken for the code.
  const text = (mail.parsed.text ?? mail.html.replace(/<[^>]*>/g, " ")).replace(/\S+@\S+|https?:\/\/\S+/g, " ");
  const found = /\b(\d{6,10})\b/.exec(text);
  if (!found) throw new Error(`no code in "${mail.subject}"`);
  return found[1] as string;
}
