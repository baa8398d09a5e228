/**
 * The baseline of POST /otp for a confirmed email: the same work without the service (no HTTP,
 * no JSON, no validation, no uniform timing), run directly by concurrent workers in the bench
 * process against the same PostgreSQL database and the same SMTP sink:
 * - `smtp`: the magic-link mail composed by the service's own MailComposer (default template) and
 *   sent through a nodemailer pooled transport with the service's settings (smtp-messenger.ts);
 * - `sql`: the service's database work of a magic link, with its own functions: the user looked
 *   up by email, then a transaction that locks the user, writes the audit entry, issues the
 *   one-time token and stamps recovery_token / recovery_sent_at (otp.ts mailMagicLink,
 *   email-codes.ts sendEmailCode);
 * - `sql+smtp`: both, the mail sent inside the transaction as the service does.
 */

import { type AuthConfig, authTables } from "@platform/auth";
import { createLogger, openDatabase } from "@platform/core";
import { createTransport } from "nodemailer";
import type { UserRow } from "../../services/auth/src/db/rows.js";
import { findUserByEmailInAudience } from "../../services/auth/src/db/user-directory.js";
import { findUserById, updateUser } from "../../services/auth/src/db/users.js";
import { NOW } from "../../services/auth/src/db/values.js";
import { audit } from "../../services/auth/src/domain/audit.js";
import type { AuthDeps } from "../../services/auth/src/domain/context.js";
import { issueOneTimeToken } from "../../services/auth/src/domain/one-time-tokens.js";
import { MailComposer } from "../../services/auth/src/mail/compose.js";
import { TemplateSource } from "../../services/auth/src/mail/template-source.js";
import type { LoadResult } from "../catalog/load.js";
import { percentile } from "./raw-pg.js";

export type RawMode = "smtp" | "sql" | "sql+smtp";

const META = { ip: "127.0.0.1", userAgent: "bench", audience: undefined };
const round = (ms: number) => Math.round(ms * 100) / 100;

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
): Promise<LoadResult & { p90Ms: number; cpu: M }> {
  const logger = createLogger({ level: "warn" });
  const tables = authTables(config.database.schema);
  // audit() and the db helpers read only config and tables.
  const deps = { config, tables } as AuthDeps;
  const composer = new MailComposer(config, new TemplateSource({}, logger), logger);
  const smtp = config.smtp;
  // As smtp-messenger.ts builds it.
  const transport = createTransport({
    pool: true,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.port === 465,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const from = smtp.adminEmail as string;
  const db = await openDatabase({ url, maxConnections: workers });
  const aud = config.jwt.aud;

  const mail = async (user: UserRow, otp: string, hash: string) => {
    const email = user.email ?? "";
    const content = await composer.compose({
      kind: "magiclink",
      channel: "email",
      userId: user.id,
      to: email,
      otp,
      tokenHash: hash,
      redirectTo: config.siteUrl,
      email,
      data: user.raw_user_meta_data ?? {},
    });
    await transport.sendMail({ from, to: content.to, subject: content.subject, html: content.html });
  };
  const users = new Map<string, UserRow>();
  const once = async (email: string) => {
    if (mode === "smtp") {
      let user = users.get(email);
      if (!user) {
        user = (await findUserByEmailInAudience(db, tables, email, aud)) as UserRow;
        users.set(email, user);
      }
      await mail(user, "123456", "0".repeat(56));
      return;
    }
    const found = await findUserByEmailInAudience(db, tables, email, aud);
    if (!found) throw new Error(`no user ${email}`);
    await db.transaction(async (tx) => {
      const user = (await findUserById(tx, tables, found.id, { lock: true })) ?? found;
      await audit(tx, deps, META, user, "user_recovery_requested");
      const { otp, hash } = await issueOneTimeToken(tx, tables, {
        userId: user.id,
        type: "recovery_token",
        identifier: email,
        length: config.mailer.otpLength,
        pkce: false,
      });
      await updateUser(tx, tables, user.id, { recovery_token: hash, recovery_sent_at: NOW });
      if (mode === "sql+smtp") await mail(user, otp, hash);
    });
  };

  let next = 0;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const run = async (until: number, record: boolean) => {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (performance.now() < until) {
          const email = emails[next++ % emails.length] as string;
          const start = performance.now();
          try {
            await once(email);
            if (record) latencies.push(performance.now() - start);
          } catch (error) {
            errors++;
            firstError ??= error;
            if (errors > 100) throw error;
          }
        }
      }),
    );
  };
  try {
    await run(performance.now() + warmupSeconds * 1000, false);
    const read = meter();
    const started = performance.now();
    await run(started + seconds * 1000, true);
    const elapsed = (performance.now() - started) / 1000;
    const cpu = read(latencies.length);
    if (latencies.length === 0) throw firstError ?? new Error("nothing completed");
    latencies.sort((a, b) => a - b);
    return {
      requestsPerSecond: latencies.length / elapsed,
      p50Ms: round(percentile(latencies, 50)),
      p90Ms: round(percentile(latencies, 90)),
      p99Ms: round(percentile(latencies, 99)),
      requests: latencies.length,
      non2xx: 0,
      errors,
      cpu,
    };
  } finally {
    transport.close();
    await db.close();
  }
}
