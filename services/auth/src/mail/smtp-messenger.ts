/**
 * The email messenger: GoTrue's SMTP settings on a pooled nodemailer transport. As GoTrue's
 * mailer dials it, port 465 speaks TLS from the start and any other port upgrades with STARTTLS
 * when the server offers it; certificates are verified.
 *
 * The mail is composed here (templates, subject, links) and sent by the transport on a worker
 * thread (smtp-worker.ts), started with the first mail and again after it stops for any reason.
 * The thread keeps the process alive only while a mail is on its way.
 */

import type { Worker } from "node:worker_threads";
import { type Logger, startModuleWorker } from "@platform/core";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";
import type { Messenger } from "../domain/messenger.js";
import type { MailComposer } from "./compose.js";
import type { SmtpFailure, SmtpMail, SmtpReply, SmtpRequest } from "./smtp-worker.js";

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
  close(): Promise<void>;
}

/** How long close() waits for the transport to say QUIT before it stops the thread. */
const CLOSE_GRACE_MS = 2_000;

function transportOptions(settings: SmtpSettings): SMTPPool.Options {
  return {
    pool: true,
    host: settings.host,
    port: settings.port,
    secure: settings.port === 465,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.pass ?? "" } } : {}),
    // A send happens inside the request (and its transaction): fail in seconds, not minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

/** The worker's report of a failed send as an Error again, with nodemailer's fields for the log. */
function sendError(failure: SmtpFailure): Error {
  const error = Object.assign(new Error(failure.message), failure);
  if (failure.stack) error.stack = failure.stack;
  return error;
}

type Pending = { resolve: (messageId: string) => void; reject: (error: Error) => void };

/** The transport's thread: sends a mail, answers its message id. */
class SmtpThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopped: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(options: SMTPPool.Options, logger: Logger) {
    const worker = startModuleWorker(new URL("./smtp-worker.ts", import.meta.url), { workerData: options });
    worker.unref();
    worker.on("message", (reply: SmtpReply) => this.settle(reply));
    worker.on("error", (error) => {
      logger.error({ err: error }, "the SMTP thread failed; the next mail starts a new one");
      this.stop(new Error("the SMTP thread failed", { cause: error }));
    });
    this.exited = new Promise((resolve) => worker.once("exit", () => resolve()));
    this.exited.then(() => this.stop(new Error("the SMTP thread stopped")));
    this.worker = worker;
  }

  /** False once the thread has failed or exited: a new one is needed. */
  get running(): boolean {
    return this.stopped === undefined;
  }

  send(mail: SmtpMail): Promise<string> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, mail } satisfies SmtpRequest);
    });
  }

  private settle(reply: SmtpReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if ("error" in reply) waiting.reject(sendError(reply.error));
    else waiting.resolve(reply.messageId);
  }

  /** Every mail still waiting fails with `reason`; later sends too. */
  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(this.stopped);
    this.pending.clear();
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.worker.postMessage({ close: true } satisfies SmtpRequest);
    const grace = new Promise<"late">((resolve) => setTimeout(resolve, CLOSE_GRACE_MS, "late").unref());
    if ((await Promise.race([this.exited, grace])) === "late") await this.worker.terminate();
  }
}

export function smtpMessenger(settings: SmtpSettings, composer: MailComposer, logger: Logger): SmtpMessenger {
  const options = transportOptions(settings);
  const from = settings.senderName ? { name: settings.senderName, address: settings.fromAddress } : settings.fromAddress;
  let thread: SmtpThread | undefined;
  return {
    async send(message) {
      const mail = await composer.compose(message);
      if (!thread?.running) thread = new SmtpThread(options, logger);
      const messageId = await thread.send({ from, to: mail.to, subject: mail.subject, html: mail.html });
      logger.debug({ kind: message.kind, userId: message.userId, messageId }, "email sent");
      return { messageId };
    },
    close: async () => thread?.close(),
  };
}
