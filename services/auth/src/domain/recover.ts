/**
 * POST /recover: a password-recovery mail for a known address. The answer is `{}` whether or not
 * the address has an account, so the endpoint does not reveal which addresses exist. For a known
 * user a recovery code is issued (recovery_token + recovery_sent_at, mirrored in one_time_tokens)
 * and mailed with a link to /verify?type=recovery; verifying it signs the user in with a session
 * whose amr is `recovery` (which may set a new password without the current one). One mail per
 * user per SMTP_MAX_FREQUENCY, as GoTrue; a mail that cannot be sent undoes the code.
 */

import { findUserByEmailInAudience } from "../db/user-directory.js";
import { findUserById, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import { audit } from "./audit.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { errors } from "./errors.js";
import { normalizeEmail } from "./identifiers.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { checkPkceParams } from "./signup.js";
import { secondsUntil } from "./time.js";

export interface RecoverInput {
  email?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
}

export async function recover(deps: AuthDeps, meta: RequestMeta, input: RecoverInput, redirectTo: string): Promise<Record<string, never>> {
  const { config, db, tables } = deps;
  if (!input.email) throw errors.validation("Password recovery requires an email", 422);
  const email = normalizeEmail(input.email);
  checkPkceParams(input);
  const found = await findUserByEmailInAudience(db, tables, email, meta.audience ?? config.jwt.aud);
  if (!found) return {};
  await db.transaction(async (tx) => {
    const user = (await findUserById(tx, tables, found.id, { lock: true })) ?? found;
    const wait = secondsUntil(user.recovery_sent_at, config.smtp.maxFrequencyMs);
    if (wait > 0) throw errors.emailSendTooSoon(wait);
    await audit(tx, deps, meta, user, "user_recovery_requested");
    const address = user.email ?? email;
    const { otp, hash } = await issueOneTimeToken(tx, tables, {
      userId: user.id,
      type: "recovery_token",
      identifier: address,
      length: config.mailer.otpLength,
    });
    await updateUser(tx, tables, user.id, { recovery_token: hash, recovery_sent_at: NOW });
    await deps.messenger.send({
      kind: "recovery",
      channel: "email",
      userId: user.id,
      to: address,
      otp,
      tokenHash: hash,
      redirectTo,
      email: address,
      data: user.raw_user_meta_data ?? {},
    });
  });
  return {};
}
