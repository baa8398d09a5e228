/**
 * A local SMTP sink in the bench process: accepts every message (no AUTH, no STARTTLS), reads its
 * DATA to the end without parsing it, and counts it once per envelope recipient (RCPT TO). Cheaper
 * than parsing each message and enough to check that every answered request got its mail.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export class SmtpSink {
  /** Messages received per recipient address (lower-cased). */
  readonly byRecipient = new Map<string, number>();
  /** Messages received in all (one per recipient). */
  received = 0;
  bytes = 0;
  rejected = 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<SmtpSink> {
    let sink: SmtpSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["AUTH", "STARTTLS"],
      logger: false,
      // Up to the pooled transports' connections; nodemailer's pool opens 5 by default.
      maxClients: 1000,
      onData(stream, session, done) {
        let size = 0;
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
        });
        stream.on("end", () => {
          if (!sink) return done();
          if (stream.sizeExceeded) {
            sink.rejected++;
            return done(new Error("message too big"));
          }
          sink.bytes += size;
          for (const rcpt of session.envelope.rcptTo) sink.count(rcpt.address.toLowerCase());
          done();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    server.on("error", () => {
      // A client that goes away mid-session (the service stopping) is not the bench's failure.
    });
    sink = new SmtpSink(server, (server.server.address() as AddressInfo).port);
    return sink;
  }

  private count(address: string): void {
    this.received++;
    this.byRecipient.set(address, (this.byRecipient.get(address) ?? 0) + 1);
  }

  /** Forgets what was received so far (between phases). */
  reset(): void {
    this.byRecipient.clear();
    this.received = 0;
    this.bytes = 0;
    this.rejected = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
