/**
 * The inbucket container's SMTP side: accepts any mail (and any AUTH, as inbucket does) and keeps
 * only recipient and subject. The suite never reads mail back (it does not call inbucket's HTTP
 * API at :9000 or :54324), so nothing more is needed.
 */
import { SMTPServer } from "smtp-server";

export interface SmtpSink {
  mails: { to: string; subject: string }[];
  close(): Promise<void>;
}

export async function startSmtpSink(port: number): Promise<SmtpSink> {
  const mails: SmtpSink["mails"] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth: (_auth, _session, done) => done(null, { user: "any" }),
    onData(stream, session, done) {
      let head = "";
      stream.on("data", (chunk: Buffer) => {
        if (head.length < 8192) head += chunk.toString("utf8");
      });
      stream.on("end", () => {
        const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? "";
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(", "), subject });
        done();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return { mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
