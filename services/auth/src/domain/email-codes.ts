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
import type { OneTimeTokenType, UserRow } from "../db/rows.js";
import type { UserPatch } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { errors } from "./errors.js";
import type { MessageKind } from "./messenger.js";
import { type CodeRequest, claimNewCode, secondsBeforeNextCode } from "./one-time-tokens.js";
import { type FlowMethod, isPkce, type PkceParams, startFlow } from "./pkce.js";
import { secondsUntil } from "./time.js";

/**
 * Magic link, recovery and email-change mails: once per minute per user unless SMTP_MAX_FREQUENCY
 * is shorter. A reauthentication nonce: once per minute.
 */
export const LINK_FREQUENCY_MS = 60_000;

export interface EmailCodeOptions {
  /** The request's PKCE parameters: with a challenge, a flow is started and the token is `pkce_`-prefixed. */
  flow?: PkceParams | undefined;
  /** Where the link should lead after verification. */
  redirectTo?: string | undefined;
  /** An audit entry written with the code. */
  audit?: CodeRequest["audit"];
}

type Purpose = Extract<MessageKind, "confirmation" | "magiclink" | "recovery" | "reauthentication">;

/** Where each purpose keeps its code: the token type, the user's columns, and the flow a PKCE link starts. */
const CODES: Record<Purpose, { type: OneTimeTokenType; sentAt: CodeRequest["sentAt"]; patch(hash: string): UserPatch; flow?: FlowMethod }> =
  {
    confirmation: {
      type: "confirmation_token",
      sentAt: "confirmation_sent_at",
      patch: (hash) => ({ confirmation_token: hash, confirmation_sent_at: NOW }),
      flow: "email/signup",
    },
    magiclink: {
      type: "recovery_token",
      sentAt: "recovery_sent_at",
      patch: (hash) => ({ recovery_token: hash, recovery_sent_at: NOW }),
      flow: "magiclink",
    },
    recovery: {
      type: "recovery_token",
      sentAt: "recovery_sent_at",
      patch: (hash) => ({ recovery_token: hash, recovery_sent_at: NOW }),
      flow: "recovery",
    },
    reauthentication: {
      type: "reauthentication_token",
      sentAt: "reauthentication_sent_at",
      patch: (hash) => ({ reauthentication_token: hash, reauthentication_sent_at: NOW }),
    },
  };

export function emailFrequencyMs(deps: AuthDeps, purpose: Purpose): number {
  const configured = deps.config.smtp.maxFrequencyMs;
  if (purpose === "confirmation") return configured;
  return purpose === "reauthentication" ? LINK_FREQUENCY_MS : Math.min(configured, LINK_FREQUENCY_MS);
}

/** Seconds before a code of `purpose` may be mailed to the user again (0: now). */
export function emailCodeWait(deps: AuthDeps, user: UserRow, purpose: Purpose): number {
  return secondsUntil(user[CODES[purpose].sentAt], emailFrequencyMs(deps, purpose));
}

/**
 * A code asked for inside the send window: GoTrue's 429 over_email_send_rate_limit (its
 * validateSentWithinFrequencyLimit, internal/api/mail.go), or nothing with
 * SECURITY_SILENT_SEND_WINDOW.
 */
export function refuseInsideWindow(deps: AuthDeps, seconds: number, channel: "email" | "sms" = "email"): void {
  if (deps.config.security.silentSendWindow) return;
  throw channel === "email" ? errors.emailSendTooSoon(Math.max(1, seconds)) : errors.smsSendTooSoon(Math.max(1, seconds));
}

function codeRequest(deps: AuthDeps, user: UserRow, purpose: Purpose, options: EmailCodeOptions): CodeRequest {
  const { type, sentAt, patch } = CODES[purpose];
  return {
    type,
    identifier: user.email ?? "",
    length: deps.config.mailer.otpLength,
    pkce: options.flow !== undefined && isPkce(options.flow),
    patch,
    sentAt,
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
  const method = CODES[purpose].flow;
  if (method && options.flow) await startFlow(q, deps, updated.id, method, options.flow);
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
