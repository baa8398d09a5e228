/**
 * The emailed codes of the sign-in flows (GoTrue's sendConfirmation, sendMagicLink and
 * sendPasswordRecovery in internal/api/mail.go): each checks how recently the user was sent one,
 * issues a code (its hash in the user's column and in one_time_tokens, `pkce_`-prefixed in a PKCE
 * flow) and hands the mail to the messenger, all inside the caller's transaction, so a mail that
 * cannot be sent leaves no new code behind.
 *
 * Frequencies: a signup confirmation at most once per SMTP_MAX_FREQUENCY; a magic link or a
 * recovery mail at most once per 60 seconds, or per SMTP_MAX_FREQUENCY when that is shorter.
 */
import type { Queryable } from "@platform/core";
import type { UserRow } from "../db/rows.js";
import { updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { errors } from "./errors.js";
import type { MessageKind } from "./messenger.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { secondsUntil } from "./time.js";

/** Magic link and recovery mails: once per minute per user unless SMTP_MAX_FREQUENCY is shorter. */
export const LINK_FREQUENCY_MS = 60_000;

export interface EmailCodeOptions {
  /** A PKCE flow: the stored token carries the `pkce_` prefix. */
  pkce: boolean;
  /** Where the link should lead after verification. */
  redirectTo?: string | undefined;
}

type Purpose = Extract<MessageKind, "confirmation" | "magiclink" | "recovery">;

export function emailFrequencyMs(deps: AuthDeps, purpose: Purpose): number {
  const configured = deps.config.smtp.maxFrequencyMs;
  return purpose === "confirmation" ? configured : Math.min(configured, LINK_FREQUENCY_MS);
}

/** Whether a code of `purpose` may be mailed to the user now (the last one is older than its frequency). */
export function emailCodeDue(deps: AuthDeps, user: UserRow, purpose: Purpose): boolean {
  const sentAt = purpose === "confirmation" ? user.confirmation_sent_at : user.recovery_sent_at;
  return secondsUntil(sentAt, emailFrequencyMs(deps, purpose)) === 0;
}

/** Issues and mails a code of `purpose` to the user's email; answers the updated user. */
export async function sendEmailCode(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  purpose: Purpose,
  options: EmailCodeOptions,
): Promise<UserRow> {
  const address = user.email ?? "";
  const confirmation = purpose === "confirmation";
  const wait = secondsUntil(confirmation ? user.confirmation_sent_at : user.recovery_sent_at, emailFrequencyMs(deps, purpose));
  if (wait > 0) throw errors.emailSendTooSoon(wait);
  const { otp, hash } = await issueOneTimeToken(q, deps.tables, {
    userId: user.id,
    type: confirmation ? "confirmation_token" : "recovery_token",
    identifier: address,
    length: deps.config.mailer.otpLength,
    pkce: options.pkce,
  });
  const updated = await updateUser(
    q,
    deps.tables,
    user.id,
    confirmation ? { confirmation_token: hash, confirmation_sent_at: NOW } : { recovery_token: hash, recovery_sent_at: NOW },
  );
  await deps.messenger.send({
    kind: purpose,
    channel: "email",
    userId: user.id,
    to: address,
    otp,
    tokenHash: hash,
    redirectTo: options.redirectTo,
    email: address,
    data: user.raw_user_meta_data ?? {},
  });
  return updated;
}
