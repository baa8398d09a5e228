/**
 * Email and phone changes requested through PUT /user. They are recorded as pending (the new
 * address in email_change / phone_change, a code for it, and with secure email change a code
 * for the current address too) until /verify confirms them (a later increment). Two cases apply
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
import { errors } from "./errors.js";
import { issueOneTimeToken } from "./one-time-tokens.js";
import { EMAIL_RESEND_INTERVAL_MS } from "./reauthentication.js";
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

export async function changeEmail(q: Queryable, deps: AuthDeps, user: UserRow, email: string): Promise<UserRow> {
  const { config } = deps;
  if (user.is_anonymous && config.mailer.autoconfirm) return applyConfirmed(q, deps, user, "email", email);
  const wait = secondsUntil(user.email_change_sent_at, EMAIL_RESEND_INTERVAL_MS);
  if (wait > 0) throw errors.emailSendTooSoon(wait);
  const length = config.mailer.otpLength;
  const next = await issueOneTimeToken(q, deps.tables, { userId: user.id, type: "email_change_token_new", identifier: email, length });
  const current =
    config.mailer.secureEmailChangeEnabled && user.email
      ? await issueOneTimeToken(q, deps.tables, { userId: user.id, type: "email_change_token_current", identifier: user.email, length })
      : undefined;
  const updated = await updateUser(q, deps.tables, user.id, {
    email_change: email,
    email_change_token_new: next.hash,
    email_change_token_current: current?.hash ?? "",
    email_change_confirm_status: 0,
    email_change_sent_at: NOW,
  });
  await deps.messenger.send({
    kind: "email_change_new",
    channel: "email",
    userId: user.id,
    to: email,
    otp: next.otp,
    tokenHash: next.hash,
    email: user.email ?? "",
    newEmail: email,
    data: user.raw_user_meta_data ?? {},
  });
  if (current && user.email) {
    await deps.messenger.send({
      kind: "email_change_current",
      channel: "email",
      userId: user.id,
      to: user.email,
      otp: current.otp,
      tokenHash: current.hash,
      email: user.email,
      newEmail: email,
      data: user.raw_user_meta_data ?? {},
    });
  }
  return updated;
}

export async function changePhone(
  q: Queryable,
  deps: AuthDeps,
  user: UserRow,
  phone: string,
  via: "sms" | "whatsapp" = "sms",
): Promise<UserRow> {
  const { config } = deps;
  if (config.sms.autoconfirm) return applyConfirmed(q, deps, user, "phone", phone);
  const wait = secondsUntil(user.phone_change_sent_at, config.sms.maxFrequencyMs);
  if (wait > 0) throw errors.smsSendTooSoon(wait);
  const token = await issueOneTimeToken(q, deps.tables, {
    userId: user.id,
    type: "phone_change_token",
    identifier: phone,
    length: config.sms.otpLength,
  });
  const updated = await updateUser(q, deps.tables, user.id, {
    phone_change: phone,
    phone_change_token: token.hash,
    phone_change_sent_at: NOW,
  });
  await deps.messenger.send({
    kind: "phone_change",
    channel: "sms",
    userId: user.id,
    to: phone,
    otp: token.otp,
    tokenHash: token.hash,
    via,
  });
  return updated;
}
