/**
 * POST /resend (GoTrue's internal/api/resend.go): sends a pending code again, for a sign-up
 * (`signup` by email, `sms` by phone) or a contact change (`email_change`, `phone_change`).
 * `{}` when there is nothing to resend: no such account, or nothing pending of that type; an
 * SMS answers its `message_id`. A code asked for again before its frequency allows answers
 * GoTrue's 429 over_email_send_rate_limit / over_sms_send_rate_limit (or, with
 * SECURITY_SILENT_SEND_WINDOW, `{}` without sending, which does not tell a pending account
 * apart). Every answer takes the same time (uniform-timing.ts).
 */
import type { UserRow } from "../db/rows.js";
import { findUserByEmailInAudience, findUserByPhoneInAudience } from "../db/user-directory.js";
import { findUserById } from "../db/users.js";
import { emailChangeFrequencyMs, sendEmailChange } from "./contact-change.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { emailCodeWait, refuseInsideWindow, sendEmailCode } from "./email-codes.js";
import { errors } from "./errors.js";
import { normalizeEmail, normalizePhone } from "./identifiers.js";
import type { OtpAnswer } from "./otp.js";
import { sendPhoneCode } from "./phone-codes.js";
import { checkPkceParams, type PkceParams, startFlow } from "./pkce.js";
import { secondsUntil } from "./time.js";

export interface ResendInput extends PkceParams {
  type?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

type ResendType = "signup" | "email_change" | "sms" | "phone_change";

/** GoTrue's ResendConfirmationParams.Validate, in its order. */
function validate(deps: AuthDeps, input: ResendInput): { type: ResendType; email?: string; phone?: string } {
  const type = input.type ?? "";
  if (type === "signup" || type === "email_change") checkPkceParams(input);
  else if (type !== "sms" && type !== "phone_change")
    throw errors.validation("Missing one of these types: signup, email_change, sms, phone_change");
  if (!input.email && type === "signup") throw errors.validation("Type provided requires an email address");
  if (!input.phone && type === "sms") throw errors.validation("Type provided requires a phone number");
  if (input.email && input.phone) throw errors.validation("Only an email address or phone number should be provided.");
  if (input.email) {
    if (!deps.config.external.email) throw errors.emailLoginsDisabled(400);
    return { type, email: normalizeEmail(input.email) };
  }
  if (input.phone) {
    if (!deps.config.external.phone) throw errors.phoneLoginsDisabled(400);
    return { type, phone: normalizePhone(input.phone) };
  }
  throw errors.validation("Missing email address or phone number");
}

/**
 * Whether `user` has something of `type` pending and, if so, how many seconds before it may be
 * sent again (0: now).
 */
function pending(deps: AuthDeps, user: UserRow, type: ResendType): { wait: number } | undefined {
  const sms = deps.config.sms.maxFrequencyMs;
  switch (type) {
    case "signup":
      return user.email_confirmed_at ? undefined : { wait: emailCodeWait(deps, user, "confirmation") };
    case "sms":
      return user.phone_confirmed_at ? undefined : { wait: secondsUntil(user.confirmation_sent_at, sms) };
    case "email_change":
      return (user.email_change ?? "") === "" ? undefined : { wait: secondsUntil(user.email_change_sent_at, emailChangeFrequencyMs(deps)) };
    case "phone_change":
      return (user.phone_change ?? "") === "" ? undefined : { wait: secondsUntil(user.phone_change_sent_at, sms) };
  }
}

const CHANNELS: Record<ResendType, "email" | "sms"> = { signup: "email", email_change: "email", sms: "sms", phone_change: "sms" };

/** Nothing pending: false; pending inside the send window: GoTrue's 429 (refuseInsideWindow); else true. */
function due(deps: AuthDeps, user: UserRow, type: ResendType): boolean {
  const found = pending(deps, user, type);
  if (!found) return false;
  if (found.wait > 0) refuseInsideWindow(deps, found.wait, CHANNELS[type]);
  return found.wait === 0;
}

async function send(deps: AuthDeps, meta: RequestMeta, user: UserRow, type: ResendType, input: ResendInput, redirectTo: string) {
  return deps.db.transaction(async (tx): Promise<OtpAnswer | undefined> => {
    const current = (await findUserById(tx, deps.tables, user.id, { lock: true })) ?? user;
    if (!due(deps, current, type)) return undefined;
    switch (type) {
      case "signup":
        await sendEmailCode(tx, deps, current, "confirmation", {
          flow: input,
          redirectTo,
          audit: { meta, action: "user_confirmation_requested" },
        });
        return {};
      case "email_change":
        await startFlow(tx, deps, current.id, "email_change", input);
        await sendEmailChange(tx, deps, current, current.email_change as string, { ...input, redirectTo });
        return {};
      case "sms": {
        const audit = { meta, action: "user_recovery_requested" as const };
        const { messageId } = await sendPhoneCode(tx, deps, current, { purpose: "confirmation", phone: current.phone as string, audit });
        return messageId ? { message_id: messageId } : {};
      }
      case "phone_change": {
        const phone = current.phone_change as string;
        const { messageId } = await sendPhoneCode(tx, deps, current, { purpose: "phone_change", phone });
        return messageId ? { message_id: messageId } : {};
      }
    }
  });
}

export function resend(deps: AuthDeps, meta: RequestMeta, input: ResendInput, redirectTo: string): Promise<OtpAnswer> {
  const { type, email, phone } = validate(deps, input);
  const { config, db, tables } = deps;
  const aud = meta.audience ?? config.jwt.aud;
  return deps.timing.run(`resend:${type}`, async () => {
    const user = email
      ? await findUserByEmailInAudience(db, tables, email, aud)
      : await findUserByPhoneInAudience(db, tables, phone as string, aud);
    if (!user || !due(deps, user, type)) return { result: {}, worked: false };
    const answer = await send(deps, meta, user, type, input, redirectTo);
    return { result: answer ?? {}, worked: answer !== undefined };
  });
}
