/**
 * The SMTP side of the email messenger, on a worker thread of its own (started by
 * smtp-messenger.ts): a pooled nodemailer transport that builds each MIME message, encodes it and
 * speaks SMTP. That work (streams, quoted-printable encoding, random boundaries and several
 * socket writes per mail) is most of a send's CPU time; here it stays off the event loop that
 * answers HTTP requests.
 *
 * Protocol: the parent posts a {@link SmtpRequest}; the worker answers each send with an
 * {@link SmtpReply} carrying the same id. `close` ends the transport's connections (QUIT) and
 * lets the thread exit.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createTransport } from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool/index.js";

export interface SmtpMail {
  from: string | { name: string; address: string };
  to: string;
  subject: string;
  html: string;
}

export type SmtpRequest = { id: number; mail: SmtpMail } | { close: true };

/** A failed send, as plain data: the error's own fields nodemailer sets (code, responseCode, command, response). */
export interface SmtpFailure {
  name: string;
  message: string;
  stack?: string | undefined;
  code?: string | undefined;
  responseCode?: number | undefined;
  command?: string | undefined;
  response?: string | undefined;
}

export type SmtpReply = { id: number; messageId: string } | { id: number; error: SmtpFailure };

function failure(error: unknown): SmtpFailure {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const { code, responseCode, command, response } = error as Error & Partial<Omit<SmtpFailure, "name" | "message">>;
  return { name: error.name, message: error.message, stack: error.stack, code, responseCode, command, response };
}

if (parentPort) {
  const port = parentPort;
  const transport = createTransport(workerData as SMTPPool.Options);
  port.on("message", (request: SmtpRequest) => {
    if ("close" in request) {
      transport.close();
      port.close();
      return;
    }
    transport.sendMail(request.mail).then(
      (info) => port.postMessage({ id: request.id, messageId: info.messageId } satisfies SmtpReply),
      (error: unknown) => port.postMessage({ id: request.id, error: failure(error) } satisfies SmtpReply),
    );
  });
}
