/**
 * Email and phone changes requested through PUT /user. They are recorded as pending (the new
 * address in email_change / phone_change, a code for it, and with secure email change a code
 * for the current address too) until /verify confirms them. Two cases apply
 * at once, as in GoTrue: an anonymous user adding an email under MAILER_AUTOCONFIRM, and any
 * phone change under SMS_AUTOCONFIRM.
 */
import type { Queryable } from "@platform/core";
import { identitiesOfUser, insertIdentity } from "../db/identities.js";
import { deleteOneTimeTokens } from "../db/one-time-tokens.js";
import type { UserRow } from "../db/rows.js";
import { type UserPatch, updateUser } from "../db/users.js";
import { NOW } from "../db/values.js";
import type { AuthDeps } from "./context.js";
import { LINK_FREQUENCY_MS } from "./email-codes.js";
import { errors } from "./errors.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { sendPhoneCode } from "./phone-codes.js";
import { isPkce, type PkceParams, startFlow } from "./pkce.js";
import { secondsUntil } from "./time.js";

function withProvider(appMetadata: Record<string, unknown>, provider: string): Record<string, unknown> {
  const providers = Array.isArray(appMetadata.providers) ? (appMetadata.providers as unknown[]) : [];
  return {
    ...appMetadata,
    provider: typeof appMetadata.provider === "string" ? appMetadata.provider : provider,
    providers: providers.includes(provider) ? providers : [...providers, provider],
  };
}

/** Sets a confirmed email or phone at once and gives the user the matching identity. */
async function applyConfirmed(q: Queryable, deps: AuthDeps, user: UserRow, provider: "email" | "phone", address: string) {
  const identities = await identitiesOfUser(q, deps.tables, user.id);
  if (!identities.some((identity) => identity.provider === provider)) {
    const data =
      provider === "email"
        ? { sub: user.id, email: address, email_verified: true, phone_verified: false }
        : { sub: user.id, phone: address, email_verified: false, phone_verified: true };
    await insertIdentity(q, deps.tables, { userId: user.id, provider, providerId: user.id, identityData: data });
  }
  await deleteOneTimeTokens(q, deps.tables, user.id, provider === "email" ? "email_change_token_new" : "phone_change_token");
  const contact: UserPatch =
    provider === "email"
      ? { email: address, email_confirmed_at: NOW, email_change: "", email_change_token_new: "", email_change_token_current: "" }
      : { phone: address, phone_confirmed_at: NOW, phone_change: "", phone_change_token: "" };
  return updateUser(q, deps.tables, user.id, {
    ...contact,
    is_anonymous: false,
    raw_app_meta_data: withProvider(user.raw_app_meta_data ?? {}, provider),
  });
}

/** Email-change mails: at most once a minute, or per SMTP_MAX_FREQUENCY when that is shorter. */
export const emailChangeFrequencyMs = (deps: AuthDeps): number => Math.min(deps.config.smtp.maxFrequencyMs, LINK_FREQUENCY_MS);

export interface EmailChangeOptions extends PkceParams {
  /** Where the confirmation link leads. */
  redirectTo?: string | undefined;
}

/**
 * GoTrue's sendEmailChange: a code for the new address and, with secure email change, one for the
 * current address, both mailed (`pkce_`-prefixed in a PKCE flow, whose flow_state the caller made).
 */
export async function sendEmailChange(q: Queryable, deps: AuthDeps, user: UserRow, email: string, options: EmailChangeOptions) {
  const { config } = deps;
  const wait = secondsUntil(user.email_change_sent_at, emailChangeFrequencyMs(deps));
  if (wait > 0) throw errors.emailSendTooSoon(wait);
  const length = config.mailer.otpLength;
  const pkce = isPkce(options);
  const issue = (type: "email_change_token_new" | "email_change_token_current", identifier: string) =>
    issueOneTimeToken(q, deps.tables, { userId: user.id, type, identifier, length, pkce });
  const next = await issue("email_change_token_new", email);
  const current = config.mailer.secureEmailChangeEnabled && user.email ? await issue("email_change_token_current", user.email) : undefined;
  const updated = await updateUser(q, deps.tables, user.id, {
    email_change: email,
    email_change_token_new: next.hash,
    email_change_token_current: current?.hash ?? "",
    email_change_confirm_status: 0,
    email_change_sent_at: NOW,
  });
  const common = {
    channel: "email" as const,
    userId: user.id,
    redirectTo: options.redirectTo,
    newEmail: email,
    data: user.raw_user_meta_data ?? {},
  };
  await deps.messenger.send({
    ...common,
    kind: "email_change_new",
    to: email,
    otp: next.otp,
    tokenHash: next.hash,
    email: user.email ?? "",
  });
  if (current && user.email) {
    await deps.messenger.send({
      ...common,
      kind: "email_change_current",
      to: user.email,
      otp: current.otp,
      tokenHash: current.hash,
      email: user.email,
    });
  }
  return updated;
}

export async function changeEmail(q: Queryable, deps: AuthDeps, user: UserRow, email: string, options: EmailChangeOptions = {}) {
  if (user.is_anonymous && deps.config.mailer.autoconfirm) return applyConfirmed(q, deps, user, "email", email);
  await startFlow(q, deps, user.id, "email_change", options);
  return sendEmailChange(q, deps, user, email, options);
}

export async function changePhone(q: Queryable, deps: AuthDeps, user: UserRow, phone: string, via: "sms" | "whatsapp" = "sms") {
  if (deps.config.sms.autoconfirm) return applyConfirmed(q, deps, user, "phone", phone);
  return (await sendPhoneCode(q, deps, user, { purpose: "phone_change", phone, via })).user;
}
