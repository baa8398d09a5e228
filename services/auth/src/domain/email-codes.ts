/**
 * The emailed codes of the sign-in flows (GoTrue's sendConfirmation, sendMagicLink and
 * sendPasswordRecovery in internal/api/mail.go): each checks how recently the user was sent one,
 * issues a code (its hash in the user's column and in one_time_tokens, `pkce_`-prefixed in a PKCE
 * flow, whose flow_state row it starts) and hands the mail to the messenger, all inside the
 * caller's transaction, so a mail that cannot be sent leaves no new code behind. The check and the
 * writes are one statement (claimNewCode), which also serialises concurrent requests for a user.
 *
 * Frequencies: a signup confirmation at most once per SMTP_MAX_FREQUENCY; a magic link or a
 * recovery mail at most once per 60 seconds, or per SMTP_MAX_FREQUENCY when that is shorter.
 */
import type { Queryable } from "@platform/core";
import type { UserRow } from "../db/rows.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { errors } from "./errors.js";
import type { MessageKind } from "./messenger.js";
import { type CodeRequest, claimNewCode, secondsBeforeNextCode } from "./one-time-tokens.js";
import { type FlowMethod, isPkce, type PkceParams, startFlow } from "./pkce.js";
import { secondsUntil } from "./time.js";

/** Magic link and recovery mails: once per minute per user unless SMTP_MAX_FREQUENCY is shorter. */
export const LINK_FREQUENCY_MS = 60_000;

export interface EmailCodeOptions {
  /** The request's PKCE parameters: with a challenge, a flow is started and the token is `pkce_`-prefixed. */
  flow: PkceParams;
  /** Where the link should lead after verification. */
  redirectTo?: string | undefined;
  /** An audit entry written with the code. */
  audit?: CodeRequest["audit"];
}

type Purpose = Extract<MessageKind, "confirmation" | "magiclink" | "recovery">;

const FLOW_METHODS: Record<Purpose, FlowMethod> = { confirmation: "email/signup", magiclink: "magiclink", recovery: "recovery" };

export function emailFrequencyMs(deps: AuthDeps, purpose: Purpose): number {
  const configured = deps.config.smtp.maxFrequencyMs;
  return purpose === "confirmation" ? configured : Math.min(configured, LINK_FREQUENCY_MS);
}

/** Whether a code of `purpose` may be mailed to the user now (the last one is older than its frequency). */
export function emailCodeDue(deps: AuthDeps, user: UserRow, purpose: Purpose): boolean {
  const sentAt = purpose === "confirmation" ? user.confirmation_sent_at : user.recovery_sent_at;
  return secondsUntil(sentAt, emailFrequencyMs(deps, purpose)) === 0;
}

function codeRequest(deps: AuthDeps, user: UserRow, purpose: Purpose, options: EmailCodeOptions): CodeRequest {
  const confirmation = purpose === "confirmation";
  return {
    type: confirmation ? "confirmation_token" : "recovery_token",
    identifier: user.email ?? "",
    length: deps.config.mailer.otpLength,
    pkce: isPkce(options.flow),
    patch: (hash) =>
      confirmation ? { confirmation_token: hash, confirmation_sent_at: NOW } : { recovery_token: hash, recovery_sent_at: NOW },
    sentAt: confirmation ? "confirmation_sent_at" : "recovery_sent_at",
    frequencyMs: emailFrequencyMs(deps, purpose),
    audit: options.audit,
  };
}

/**
 * Issues and mails a code of `purpose` to the user's email; answers the updated user, or
 * undefined (nothing written, nothing sent) when the last one went out too recently.
 */
export async function sendEmailCodeIfDue(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  purpose: Purpose,
  options: EmailCodeOptions,
): Promise<UserRow | undefined> {
  const claimed = await claimNewCode(q, deps, user.id, codeRequest(deps, user, purpose, options));
  if (!claimed) return undefined;
  const { user: updated, otp, hash } = claimed;
  await startFlow(q, deps, updated.id, FLOW_METHODS[purpose], options.flow);
  const address = updated.email ?? "";
  await deps.messenger.send({
    kind: purpose,
    channel: "email",
    userId: updated.id,
    to: address,
    otp,
    tokenHash: hash,
    redirectTo: options.redirectTo,
    email: address,
    data: updated.raw_user_meta_data ?? {},
  });
  return updated;
}

/** As {@link sendEmailCodeIfDue}, a code asked for too soon being GoTrue's 429 over_email_send_rate_limit. */
export async function sendEmailCode(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  purpose: Purpose,
  options: EmailCodeOptions,
): Promise<UserRow> {
  const updated = await sendEmailCodeIfDue(q, deps, user, purpose, options);
  if (updated) return updated;
  throw errors.emailSendTooSoon(await secondsBeforeNextCode(q, deps, user.id, codeRequest(deps, user, purpose, options)));
}
