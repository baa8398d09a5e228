/**
 * The baseline of POST /otp for a confirmed email: the same work without the service (no HTTP,
 * no JSON, no validation, no uniform timing), run directly by concurrent workers in the bench
 * process against the same PostgreSQL database and the same SMTP sink:
 * - `smtp`: the magic-link mail composed and sent by the service's own email messenger
 *   (smtp-messenger.ts: its MailComposer with the default template, its nodemailer pooled
 *   transport on its own thread);
 * - `sql`: the service's database work of a magic link, with its own functions: the user looked
 *   up by email, then a transaction whose one statement claims the code (recovery_token and
 *   recovery_sent_at, the one-time token, the audit entry; otp.ts mailMagicLink, email-codes.ts
 *   sendEmailCodeIfDue), the mail handed to a messenger that sends nothing;
 * - `sql+smtp`: both, the mail sent inside the transaction as the service does.
 */

import { type AuthConfig, authTables } from "@platform/auth";
import { createLogger, openDatabase } from "@platform/core";
import type { UserRow } from "../../services/auth/src/db/rows.js";
import { findUserByEmailInAudience } from "../../services/auth/src/db/user-directory.js";
import type { AuthDeps } from "../../services/auth/src/domain/context.js";
import { sendEmailCodeIfDue } from "../../services/auth/src/domain/email-codes.js";
import type { Messenger } from "../../services/auth/src/domain/messenger.js";
import { MailComposer } from "../../services/auth/src/mail/compose.js";
import { smtpMessenger } from "../../services/auth/src/mail/smtp-messenger.js";
import { TemplateSource } from "../../services/auth/src/mail/template-source.js";
import type { LoadResult } from "../catalog/load.js";
import { closedLoop } from "../common/closed-loop.js";

export type RawMode = "smtp" | "sql" | "sql+smtp";

const META = { ip: "127.0.0.1", userAgent: "bench", audience: undefined };
const sendsNothing: Messenger = { send: async () => undefined };

/**
 * `workers` loops of `mode` for `seconds` (after `warmupSeconds` unrecorded), users in turn from
 * `emails`. `meter` is started when the measured part starts and read with the operations when it
 * ends (before the pool closes, so PostgreSQL's backends are still there to be measured).
 */
export async function measureRawOtp<M>(
  config: AuthConfig,
  url: string,
  emails: string[],
  mode: RawMode,
  workers: number,
  seconds: number,
  meter: () => (operations: number) => M,
  warmupSeconds = 1,
): Promise<LoadResult & { p90Ms: number; cpu: M | undefined }> {
  const logger = createLogger({ level: "warn" });
  const tables = authTables(config.database.schema);
  const composer = new MailComposer(config, new TemplateSource({}, logger), logger);
  const { smtp } = config;
  const email = smtpMessenger(
    { host: smtp.host as string, port: smtp.port, fromAddress: smtp.adminEmail as string, senderName: smtp.senderName },
    composer,
    logger,
  );
  const db = await openDatabase({ url, maxConnections: workers });
  // The send path reads only these.
  const deps = { config, tables, db, messenger: mode === "sql" ? sendsNothing : email } as AuthDeps;
  const aud = config.jwt.aud;
  const options = { flow: {}, redirectTo: config.siteUrl, audit: { meta: META, action: "user_recovery_requested" as const } };

  const users = new Map<string, UserRow>();
  const once = async (address: string) => {
    if (mode === "smtp") {
      let user = users.get(address);
      if (!user) {
        user = (await findUserByEmailInAudience(db, tables, address, aud)) as UserRow;
        users.set(address, user);
      }
      const message = { kind: "magiclink", channel: "email", userId: user.id, to: address, email: address } as const;
      await email.send({ ...message, otp: "123456", tokenHash: "0".repeat(56), redirectTo: config.siteUrl, data: {} });
      return;
    }
    const found = await findUserByEmailInAudience(db, tables, address, aud);
    if (!found) throw new Error(`no user ${address}`);
    const sent = await db.transaction((tx) => sendEmailCodeIfDue(tx, deps, found, "magiclink", options));
    if (!sent) throw new Error(`no magic link claimed for ${address}`);
  };

  let next = 0;
  try {
    return await closedLoop({ workers, warmupSeconds, seconds, meter, once: () => once(emails[next++ % emails.length] as string) });
  } finally {
    await email.close();
    await db.close();
  }
}
