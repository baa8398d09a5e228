/**
 * POST /recover (GoTrue's internal/api/recover.go): a password-recovery mail for a known address.
 * A recovery code is issued (recovery_token + recovery_sent_at, mirrored in one_time_tokens) and
 * mailed with a link to /verify?type=recovery; verifying it signs the user in with a session whose
 * amr is `recovery` (which may set a new password without the current one). With a PKCE challenge
 * the link leads to `?code=` instead (see pkce.ts).
 *
 * The answer is `{}` for known and unknown addresses alike and takes the same time
 * (uniform-timing.ts). A second mail asked for inside the send window answers GoTrue's 429
 * over_email_send_rate_limit (which only a known address can get), or `{}` with
 * SECURITY_SILENT_SEND_WINDOW.
 */
import { findUserByEmailInAudience } from "../db/user-directory.js";
import { findUserById } from "../db/users.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { emailCodeWait, refuseInsideWindow, sendEmailCodeIfDue } from "./email-codes.js";
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
    if (!found) return { result: {}, worked: false };
    const wait = emailCodeWait(deps, found, "recovery");
    if (wait > 0) {
      refuseInsideWindow(deps, wait);
      return { result: {}, worked: false };
    }
    const options = { flow: input, redirectTo, audit: { meta, action: "user_recovery_requested" as const } };
    const sent = await db.transaction((tx) => sendEmailCodeIfDue(tx, deps, found, "recovery", options));
    // Another request sent one in the meantime: inside the window now.
    if (!sent) refuseInsideWindow(deps, emailCodeWait(deps, (await findUserById(db, tables, found.id)) ?? found, "recovery"));
    return { result: {}, worked: sent !== undefined };
  });
}
