/**
 * POST /recover (GoTrue's internal/api/recover.go): a password-recovery mail for a known address.
 * A recovery code is issued (recovery_token + recovery_sent_at, mirrored in one_time_tokens) and
 * mailed with a link to /verify?type=recovery; verifying it signs the user in with a session whose
 * amr is `recovery` (which may set a new password without the current one). With a PKCE challenge
 * the link leads to `?code=` instead (see pkce.ts).
 *
 * The answer does not reveal whether the address has an account: it is `{}` for known and unknown
 * addresses alike, also when a mail went out too recently to send another (GoTrue answers 429
 * then, which only a known address can get), and it takes the same time (uniform-timing.ts).
 */
import { findUserByEmailInAudience } from "../db/user-directory.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { emailCodeDue, sendEmailCodeIfDue } from "./email-codes.js";
import { errors } from "./errors.js";
import { normalizeEmail } from "./identifiers.js";
import { checkPkceParams, type PkceParams } from "./pkce.js";

export interface RecoverInput extends PkceParams {
  email?: string | undefined;
}

export async function recover(deps: AuthDeps, meta: RequestMeta, input: RecoverInput, redirectTo: string): Promise<Record<string, never>> {
  const { config, db, tables } = deps;
  if (!config.external.email) throw errors.emailLoginsDisabled(400);
  if (!input.email) throw errors.validation("Password recovery requires an email", 422);
  const email = normalizeEmail(input.email);
  checkPkceParams(input);
  return deps.timing.run("recover", async () => {
    const found = await findUserByEmailInAudience(db, tables, email, meta.audience ?? config.jwt.aud);
    if (!found || !emailCodeDue(deps, found, "recovery")) return { result: {}, worked: false };
    const options = { flow: input, redirectTo, audit: { meta, action: "user_recovery_requested" as const } };
    const sent = await db.transaction((tx) => sendEmailCodeIfDue(tx, deps, found, "recovery", options));
    return { result: {}, worked: sent !== undefined };
  });
}
