/**
 * POST /magiclink and POST /otp (GoTrue's internal/api/magic_link.go and otp.go): passwordless
 * sign-in by an emailed link and code, or by an SMS code.
 * - A confirmed account is sent a code: by email a magic link (stored as the recovery token; it
 *   verifies as `magiclink`, or as `email` with the code), by SMS a phone confirmation code
 *   (verifies as `sms`), answered with the provider's `message_id`.
 * - An address without a confirmed account is signed up first (signupForOtp), unless `create_user`
 *   is false: with autoconfirm the new account gets the code at once, otherwise its confirmation
 *   mail or SMS works as the sign-in code.
 * `create_user: false` for an unknown address answers `{}` like a send (GoTrue answers 422
 * otp_disabled, which tells accounts apart). A code asked for again before its frequency allows
 * is not sent and answers GoTrue's 429 (over_email_send_rate_limit, over_sms_send_rate_limit),
 * or `{}` with SECURITY_SILENT_SEND_WINDOW. Every answer takes the same time (uniform-timing.ts).
 */
import type { UserRow } from "../db/rows.js";
import { findUserByEmailInAudience, findUserByPhoneInAudience } from "../db/user-directory.js";
import { findUserById } from "../db/users.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { emailCodeWait, refuseInsideWindow, sendEmailCodeIfDue } from "./email-codes.js";
import { errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import { sendPhoneCodeIfDue } from "./phone-codes.js";
import { checkPkceParams, type PkceParams } from "./pkce.js";
import { signupForOtp } from "./signup.js";
import { smsChannel } from "./sms-readiness.js";
import { secondsUntil } from "./time.js";

export interface MagicLinkInput extends PkceParams {
  email?: string | undefined;
  data?: Record<string, unknown> | undefined;
}

export interface OtpInput extends MagicLinkInput {
  phone?: string | undefined;
  /** Defaults to true. */
  createUser?: boolean | undefined;
  channel?: string | undefined;
}

export type OtpAnswer = { message_id?: string };

function checkMagicLinkEnabled(deps: AuthDeps): void {
  if (!deps.config.external.email) throw errors.emailLoginsDisabled();
  if (!deps.config.external.magicLink) throw errors.magicLinkDisabled();
}

/** Mails a magic link to a confirmed account (unless one went out too recently). True when one was sent. */
async function mailMagicLink(deps: AuthDeps, meta: RequestMeta, found: UserRow, input: PkceParams, redirectTo: string): Promise<boolean> {
  const wait = emailCodeWait(deps, found, "magiclink");
  if (wait > 0) {
    refuseInsideWindow(deps, wait);
    return false;
  }
  const options = { flow: input, redirectTo, audit: { meta, action: "user_recovery_requested" as const } };
  const sent = await deps.db.transaction((tx) => sendEmailCodeIfDue(tx, deps, found, "magiclink", options));
  // Another request sent one in the meantime: inside the window now.
  if (!sent) refuseInsideWindow(deps, emailCodeWait(deps, (await findUserById(deps.db, deps.tables, found.id)) ?? found, "magiclink"));
  return sent !== undefined;
}

async function emailOtp(deps: AuthDeps, meta: RequestMeta, email: string, input: OtpInput, redirectTo: string) {
  const { config, db, tables } = deps;
  const found = await findUserByEmailInAudience(db, tables, email, meta.audience ?? config.jwt.aud);
  if (found?.email_confirmed_at) return { result: {}, worked: await mailMagicLink(deps, meta, found, input, redirectTo) };
  if (input.createUser === false) return { result: {}, worked: false };
  const confirmed = await signupForOtp(deps, meta, { ...input, provider: "email", address: email, data: input.data ?? {}, redirectTo });
  if (confirmed) await mailMagicLink(deps, meta, confirmed, input, redirectTo);
  return { result: {}, worked: true };
}

/** POST /magiclink: as /otp with an email (and `create_user` true). */
export function magicLink(deps: AuthDeps, meta: RequestMeta, input: MagicLinkInput, redirectTo: string): Promise<OtpAnswer> {
  checkMagicLinkEnabled(deps);
  if (!input.email) throw errors.validation("Password recovery requires an email", 422);
  const email = normalizeEmail(input.email);
  checkPkceParams(input);
  return deps.timing.run("magiclink", () => emailOtp(deps, meta, email, { ...input, createUser: true }, redirectTo));
}

/** Sends an SMS code to a confirmed phone account; undefined when one went out too recently. */
async function textCode(deps: AuthDeps, meta: RequestMeta, found: UserRow, phone: string, via: "sms" | "whatsapp") {
  const wait = secondsUntil(found.confirmation_sent_at, deps.config.sms.maxFrequencyMs);
  if (wait > 0) {
    refuseInsideWindow(deps, wait, "sms");
    return undefined;
  }
  const request = {
    purpose: "confirmation" as const,
    phone,
    via,
    audit: { meta, action: "user_recovery_requested" as const, traits: { channel: via } },
  };
  const sent = await deps.db.transaction((tx) => sendPhoneCodeIfDue(tx, deps, found, request));
  return sent && (sent.messageId ?? "");
}

async function phoneOtp(deps: AuthDeps, meta: RequestMeta, phone: string, via: "sms" | "whatsapp", input: OtpInput) {
  const { config, db, tables } = deps;
  const found = await findUserByPhoneInAudience(db, tables, phone, meta.audience ?? config.jwt.aud);
  let target = found?.phone_confirmed_at ? found : undefined;
  if (!target) {
    if (input.createUser === false) return { result: {}, worked: false };
    target = await signupForOtp(deps, meta, { provider: "phone", address: phone, data: input.data ?? {}, channel: via });
    if (!target) return { result: {}, worked: true };
  }
  const messageId = await textCode(deps, meta, target, phone, via);
  return { result: messageId ? { message_id: messageId } : {}, worked: messageId !== undefined };
}

export function otp(deps: AuthDeps, meta: RequestMeta, input: OtpInput, redirectTo: string): Promise<OtpAnswer> {
  const { config } = deps;
  if (input.email && input.phone) throw errors.validation("Only an email address or phone number should be provided");
  if (input.email && input.channel) throw errors.validation("Channel should only be specified with Phone OTP");
  checkPkceParams(input);
  if (input.email) {
    checkMagicLinkEnabled(deps);
    const email = normalizeEmail(input.email);
    return deps.timing.run("otp:email", () => emailOtp(deps, meta, email, input, redirectTo));
  }
  if (!input.phone) throw errors.validation("One of email or phone must be set");
  if (!config.external.phone) throw errors.phoneProviderDisabled();
  const phone = normalizePhone(input.phone);
  const via = smsChannel(config.sms, input.channel);
  return deps.timing.run("otp:phone", () => phoneOtp(deps, meta, phone, via, input));
}
